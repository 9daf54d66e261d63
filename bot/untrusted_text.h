#pragma once
// Text kgate did not write (an agent's plan and reflection, a model's
// outcome line) placed into a pull-request body or comment. On GitHub such
// text could ping people (@alice, @org/team), link or close issues (#123,
// owner/repo#1, issue URLs make back-references), hide content (HTML
// comments, <details>, links whose target differs from their text, images
// that load from anywhere), or break out of the block it sits in (a code
// fence left open swallows the rest of the body).
//
// Invariant: the result of neutralize_untrusted() rendered as GitHub
// Markdown shows the same characters as the input, as plain text: no
// mention, issue reference, autolink, HTML element, link, image or code
// block comes from it.
#include <string>

namespace kgate::bot {

// For prose: a zero-width space after '@' and '#', between "://" and
// before "www.", HTML's special characters as entities, Markdown's
// punctuation backslash-escaped. Line breaks are kept.
std::string neutralize_untrusted(const std::string& text);

// The same on one line (a table cell, a <summary>): line breaks become spaces.
std::string neutralize_untrusted_line(const std::string& text);

}  // namespace kgate::bot
