#pragma once
// Integer expressions of the manifest: counts, launch dimensions and scalar
// values written over shape variables and tunables, and the constraints
// between tunables ("BM % TM == 0").
//
//   expr    := or ('?' expr ':' expr)?
//   or      := and ('||' and)*
//   and     := bitor ('&&' bitor)*
//   bitor   := bitxor ('|' bitxor)*
//   bitxor  := bitand ('^' bitand)*
//   bitand  := compare ('&' compare)*
//   compare := shift (('==' | '!=' | '<' | '<=' | '>' | '>=') shift)?
//   shift   := sum (('<<' | '>>') sum)*
//   sum     := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | '!' unary | '~' unary | primary
//   primary := INTEGER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
//
// The levels and their order are C's. Functions: ceil_div(a, b),
// round_up(a, b), min(a, b, ...), max(a, b, ...), abs(a), ceil_log2(a),
// floor_log2(a). A conditional evaluates only the side it chooses, so
// "n > 0 ? total / n : 0" never divides by zero. Shifts take counts 0 to 62
// of non-negative numbers.
// Comparisons, '&&', '||' and '!' yield 1 or 0, as in C; a comparison does
// not chain (a < b < c is an error: write a < b && b < c); '&&' and '||'
// stop at their left operand when it decides ("TM != 0 && BM % TM == 0"
// never divides by zero).
// Arithmetic is 64-bit signed; overflow, division by zero and unknown names
// are errors, never wrapped or defaulted values.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kgate {

using Variables = std::map<std::string, int64_t, std::less<>>;

class Expression {
 public:
  // Parses `text`; errors say the column and what was expected.
  static Result<Expression> parse(std::string_view text);
  // An expression that is a constant.
  static Expression constant(int64_t value);

  Result<int64_t> evaluate(const Variables& variables) const;
  // Variable names the expression reads (function names excluded).
  std::set<std::string> names() const;
  const std::string& text() const { return text_; }

 private:
  enum class Op {
    kConstant,
    kVariable,
    kNegate,
    kNot,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kMod,
    kCall,
    kEq,
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,
    kAnd,
    kOr,
    kConditional,
    kBitAnd,
    kBitOr,
    kBitXor,
    kBitNot,
    kShiftLeft,
    kShiftRight
  };
  struct Node {
    Op op;
    int64_t value = 0;
    std::string name;           // variable or function name
    std::vector<int> children;  // indices into nodes_
  };
  friend class ExpressionParser;

  Result<int64_t> evaluate_node(int index, const Variables& variables) const;

  std::string text_;
  std::vector<Node> nodes_;
  int root_ = -1;
};

}  // namespace kgate
