#pragma once
// Who kgate is on a forge: the name and address its commits carry, and the
// login its comments are written by.
//
// On GitHub a GitHub App acts through its bot user "<slug>[bot]", whose
// commits GitHub attributes to the App (avatar, link) only when the author
// address is the bot user's numeric no-reply address,
// "<id>+<slug>[bot]@users.noreply.github.com". The id is the bot user's
// (GET /users/<slug>[bot]), not the App's.
//
// Invariant: `email` is never empty; `login` is empty only when the forge
// could not say who it writes as, and then no comment counts as kgate's.
#include <cstdint>
#include <string>

namespace kgate::bot {

struct BotIdentity {
  std::string name = "kgate[bot]";
  std::string email = "kgate[bot]@users.noreply.github.com";
  std::string login = "kgate[bot]";  // the author of kgate's comments

  // Whether a commit's author address is kgate's: this identity's, or the
  // address without an id that earlier versions of kgate committed with.
  bool is_author_email(const std::string& address) const;
};

// "<id>+<login>@users.noreply.github.com"; without an id (0), "<login>@users.noreply.github.com".
std::string noreply_email(int64_t user_id, const std::string& login);

// "alice" for "12345+alice@users.noreply.github.com" or "alice@users.noreply.github.com";
// empty for any other address.
std::string login_from_noreply_email(const std::string& address);

// The App's bot login for an App slug: "kgate" -> "kgate[bot]".
std::string bot_login_for_slug(const std::string& slug);

}  // namespace kgate::bot
