#pragma once
// A before/after latency chart per shape, as a self-contained SVG (no
// scripts, no external fonts) that GitHub renders in a pull request body.
// Each shape gets two horizontal bars scaled to the slower of the two, so
// shapes of very different sizes stay readable side by side.
#include <string>
#include <vector>

#include "bot/pull_request_proposal.h"

namespace kgate::bot {

std::string render_before_after_svg(const std::string& title, const std::vector<ShapeRow>& rows);

std::string xml_escape(const std::string& text);

}  // namespace kgate::bot
