#include "core/tunable_role.h"

#include <algorithm>

namespace kgate {

const std::vector<std::string_view>& tunable_roles() {
  static const std::vector<std::string_view> roles = {
      "block_size",        // threads per block
      "rows_per_block",    // rows (or items) one block handles
      "tile_rows",         // a block's tile: rows (BM)
      "tile_cols",         // a block's tile: columns (BN)
      "tile_k",            // a block's tile: the reduction depth (BK)
      "thread_tile_rows",  // one thread's tile: rows (TM)
      "thread_tile_cols",  // one thread's tile: columns (TN)
      "vector_width",      // elements per load/store instruction
      "unroll",            // loop unrolling factor
      "items_per_thread",  // elements one thread handles
      "split",             // blocks (or a cluster) sharing one row or reduction
      "other",             // none of these: the tuner steps it without a role's order
  };
  return roles;
}

bool is_tunable_role(std::string_view role) {
  const auto& roles = tunable_roles();
  return std::find(roles.begin(), roles.end(), role) != roles.end();
}

std::string tunable_roles_text() {
  std::string text;
  for (std::string_view r : tunable_roles()) text += (text.empty() ? "" : ", ") + std::string(r);
  return text;
}

}  // namespace kgate
