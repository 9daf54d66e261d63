#pragma once
// The before/after chart of a pull request, as a Mermaid block in the body
// itself: GitHub renders it, no image has to live anywhere (a chart
// committed into the pull request's branch would land on the default branch
// with the merge). Each shape's "after" bar is its latency as a percentage
// of "before" (the line at 100), so shapes of very different sizes share one
// axis and a shorter bar is faster.
#include <string>
#include <vector>

#include "bot/pull_request_proposal.h"

namespace kgate::bot {

// A ```mermaid fenced block (xychart-beta); empty when no shape has both times.
std::string mermaid_latency_chart(const std::string& title, const std::vector<ShapeRow>& rows);

}  // namespace kgate::bot
