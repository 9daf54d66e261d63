#pragma once
// What a tunable controls, as a manifest may declare it
// ({"values": [...], "role": "tile_rows"}; docs/manifest.md, "Tunables").
// A closed set: the tuner orders its moves by role, and a name it does not
// know would silently get none.
#include <string>
#include <string_view>
#include <vector>

namespace kgate {

// The roles, in the order docs/manifest.md lists them.
const std::vector<std::string_view>& tunable_roles();
bool is_tunable_role(std::string_view role);
// "block_size, tile_rows, ...": for messages.
std::string tunable_roles_text();

}  // namespace kgate
