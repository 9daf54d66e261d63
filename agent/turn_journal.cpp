#include "agent/turn_journal.h"

#include <cctype>
#include <system_error>

#include "core/file_util.h"
#include "core/hash.h"

namespace kgate {
namespace {

// "<number>-<12 hex>" from "answer-<number>-<12 hex>.txt" (prefix "answer-",
// suffix ".txt"), or "" when the name is not one.
std::string id_in_name(const std::string& name, const std::string& prefix,
                       const std::string& suffix) {
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return "";
  const std::string id = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  const size_t dash = id.find('-');
  if (dash == 0 || dash == std::string::npos || id.size() - dash - 1 != 12) return "";
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    const bool ok = i < dash    ? std::isdigit(static_cast<unsigned char>(c)) != 0
                    : i == dash ? true
                                : std::isxdigit(static_cast<unsigned char>(c)) != 0;
    if (!ok) return "";
  }
  return id;
}

int number_of_id(const std::string& id) {
  return std::atoi(id.substr(0, id.find('-')).c_str());
}

bool blank(const std::string& text) {
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

TurnFiles turn_files(const std::filesystem::path& episode_dir, int number,
                     const std::string& request_text) {
  TurnFiles t;
  t.number = number;
  t.id = std::to_string(number) + "-" + sha256_hex(request_text).substr(0, 12);
  t.request = episode_dir / kTurnsFolder / ("request-" + t.id + ".json");
  t.answer = episode_dir / kTurnsFolder / ("answer-" + t.id + ".txt");
  return t;
}

Status record_request(const TurnFiles& turn, const std::string& request_text) {
  std::error_code ec;
  if (std::filesystem::exists(turn.request, ec)) return {};
  std::filesystem::create_directories(turn.request.parent_path(), ec);
  if (ec)
    return Error::infrastructure("cannot create " + turn.request.parent_path().string() + ": " +
                                 ec.message());
  return write_file_atomic(turn.request, request_text);
}

Status record_answer(const TurnFiles& turn, const std::string& answer) {
  std::error_code ec;
  if (std::filesystem::exists(turn.answer, ec)) return {};
  std::filesystem::create_directories(turn.answer.parent_path(), ec);
  return write_file_atomic(turn.answer, answer);
}

Result<PlacedAnswer> placed_answer(const TurnFiles& turn) {
  const std::filesystem::path dir = turn.answer.parent_path();
  const std::string where =
      "the answer to request " + std::to_string(turn.number) + " goes to " + turn.answer.string();
  PlacedAnswer placed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("answer", 0) != 0 || entry.path() == turn.answer) continue;
    const std::string id = id_in_name(name, "answer-", ".txt");
    if (id.empty() || !std::filesystem::exists(dir / ("request-" + id + ".json"), ec))
      return Error::bad_input(
          entry.path().string() + " answers no request of this episode (" +
          (id.empty()
               ? "its name is not answer-<id>.txt, with the id of a request in " + dir.string()
               : "there is no request-" + id + ".json beside it: another episode's?") +
          "); it is refused. Move it away; " + where);
    if (number_of_id(id) == turn.number)
      placed.note += (placed.note.empty() ? "" : " ") + name +
                     " answers an earlier version of request " + std::to_string(turn.number) +
                     " (request-" + id + ".json, asked before the episode was interrupted), " +
                     "not this one.";
  }
  if (!std::filesystem::exists(turn.answer, ec)) return placed;
  auto text = read_file(turn.answer);
  if (!text.ok()) return text.error();
  if (blank(*text))
    return Error::bad_input(turn.answer.string() + " is empty: write the model's answer to " +
                            turn.request.string() + " there");
  placed.text = std::move(*text);
  return placed;
}

Result<std::map<int, TurnFiles>> recorded_turns(const std::filesystem::path& turns_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(turns_dir, ec))
    return Error::bad_input(turns_dir.string() +
                            " is not a folder of recorded turns (an episode's turns/ folder)");
  std::map<int, TurnFiles> turns;
  for (const auto& entry : std::filesystem::directory_iterator(turns_dir, ec)) {
    const std::string id = id_in_name(entry.path().filename().string(), "answer-", ".txt");
    if (id.empty()) continue;
    TurnFiles t;
    t.number = number_of_id(id);
    t.id = id;
    t.answer = entry.path();
    if (std::filesystem::path r = turns_dir / ("request-" + id + ".json");
        std::filesystem::exists(r, ec))
      t.request = r;
    if (auto [it, fresh] = turns.emplace(t.number, t); !fresh)
      return Error::bad_input(turns_dir.string() + " holds two answers for turn " +
                              std::to_string(t.number) + " (" + it->second.answer.string() + ", " +
                              t.answer.string() + "): keep the one the episode used");
  }
  if (ec) return Error::bad_input("cannot read " + turns_dir.string() + ": " + ec.message());
  if (turns.empty())
    return Error::bad_input(turns_dir.string() + " holds no answer-<id>.txt files to replay");
  return turns;
}

}  // namespace kgate
