#pragma once
// An agent's answer to a propose request, parsed from free text or JSON.
// Models wrap code in fences, add prose around it, or answer the JSON schema
// of structured output; all of these parse to the same fields.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expression.h"

namespace kgate {

struct AgentAnswer {
  std::string bottleneck;  // at most three sentences (longer text is cut)
  std::string change;      // the plan: what the candidate changes
  std::string expected_gain;
  std::string risks;
  std::optional<std::string> code;  // the complete kernel source
  Variables tunables;               // values for the manifest's tunables
  std::vector<std::string> flags;   // extra compiler flags
  // The candidate's own launch, as given: {"grid": [...], "block": [...],
  // "shared_bytes": ...} with integers or expressions over the shape's
  // variables and tunables (candidate_launch.h); null: the current one.
  nlohmann::json launch;

  nlohmann::json to_json() const;  // code left out (stored in its own file)
  // "bottleneck: ...; change: ..." for records and the folded history.
  std::string plan_text() const;
};

// Never fails: what cannot be found stays empty. `code` is set only when a
// block of code was found.
AgentAnswer parse_agent_answer(const std::string& text);

// The JSON schema asked of servers that support structured output.
nlohmann::json agent_answer_schema();

// The first `max_sentences` sentences of `text`.
std::string first_sentences(const std::string& text, int max_sentences);
// The text of a "REFLECTION:" line at the start of an answer's line (with
// the lines that continue it, up to a blank line, a section or a code
// block); "" when the answer has none.
std::string reflection_in(const std::string& answer);

}  // namespace kgate
