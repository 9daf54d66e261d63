#include "core/expression.h"

#include <cctype>
#include <optional>

namespace kgate {
namespace {

// The functions expressions may call; arity 0: two or more arguments.
struct Function {
  std::string_view name;
  int arity;
};
constexpr Function kFunctions[] = {{"ceil_div", 2}, {"round_up", 2},  {"min", 0},       {"max", 0},
                                   {"abs", 1},      {"ceil_log2", 1}, {"floor_log2", 1}};

const Function* find_function(std::string_view name) {
  for (const Function& f : kFunctions)
    if (f.name == name) return &f;
  return nullptr;
}

std::string function_names() {
  std::string out;
  for (const Function& f : kFunctions) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

}  // namespace

class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, Expression& out) : text_(text), out_(out) {}

  Status parse() {
    auto root = parse_conditional();
    if (!root.ok()) return root.error();
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    out_.root_ = *root;
    return {};
  }

 private:
  using Op = Expression::Op;

  Error fail(const std::string& what) const {
    return Error::bad_input("in expression \"" + std::string(text_) + "\" at column " +
                            std::to_string(pos_ + 1) + ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // Accepts the two-character operator `op` ("&&", "<=", ...).
  bool accept2(const char* op) {
    skip_space();
    if (text_.substr(pos_, 2) != op) return false;
    pos_ += 2;
    return true;
  }
  // Accepts `c` only where the next character is not `unless` ('<' but not "<=").
  bool accept_alone(char c, char unless) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    if (pos_ + 1 < text_.size() && text_[pos_ + 1] == unless) return false;
    ++pos_;
    return true;
  }
  int add(Op op, std::vector<int> children = {}, int64_t value = 0, std::string name = {}) {
    out_.nodes_.push_back({op, value, std::move(name), std::move(children)});
    return static_cast<int>(out_.nodes_.size()) - 1;
  }

  // cond ? a : b, right to left as in C; only the chosen side is evaluated.
  Result<int> parse_conditional() {
    auto condition = parse_or();
    if (!condition.ok()) return condition;
    if (!accept('?')) return condition;
    auto when_true = parse_conditional();
    if (!when_true.ok()) return when_true;
    if (!accept(':')) return fail("expected ':' after the '?' branch");
    auto when_false = parse_conditional();
    if (!when_false.ok()) return when_false;
    return add(Op::kConditional, {*condition, *when_true, *when_false});
  }

  Result<int> parse_or() {
    auto left = parse_and();
    if (!left.ok()) return left;
    while (accept2("||")) {
      auto right = parse_and();
      if (!right.ok()) return right;
      left = add(Op::kOr, {*left, *right});
    }
    return left;
  }

  Result<int> parse_and() {
    auto left = parse_bit_or();
    if (!left.ok()) return left;
    while (accept2("&&")) {
      auto right = parse_bit_or();
      if (!right.ok()) return right;
      left = add(Op::kAnd, {*left, *right});
    }
    return left;
  }

  // The bitwise levels, loosest first, as C orders them: | then ^ then &.
  Result<int> parse_bit_or() {
    auto left = parse_bit_xor();
    if (!left.ok()) return left;
    while (accept_alone('|', '|')) {
      auto right = parse_bit_xor();
      if (!right.ok()) return right;
      left = add(Op::kBitOr, {*left, *right});
    }
    return left;
  }

  Result<int> parse_bit_xor() {
    auto left = parse_bit_and();
    if (!left.ok()) return left;
    while (accept('^')) {
      auto right = parse_bit_and();
      if (!right.ok()) return right;
      left = add(Op::kBitXor, {*left, *right});
    }
    return left;
  }

  Result<int> parse_bit_and() {
    auto left = parse_compare();
    if (!left.ok()) return left;
    while (accept_alone('&', '&')) {
      auto right = parse_compare();
      if (!right.ok()) return right;
      left = add(Op::kBitAnd, {*left, *right});
    }
    return left;
  }

  // The comparison operator at the cursor, consumed; nullopt if none.
  std::optional<Op> accept_comparison() {
    if (accept2("==")) return Op::kEq;
    if (accept2("!=")) return Op::kNe;
    if (accept2("<=")) return Op::kLe;
    if (accept2(">=")) return Op::kGe;
    if (accept_alone('<', '<')) return Op::kLt;
    if (accept_alone('>', '>')) return Op::kGt;
    return std::nullopt;
  }

  Result<int> parse_compare() {
    auto left = parse_shift();
    if (!left.ok()) return left;
    auto op = accept_comparison();
    if (!op) return left;
    auto right = parse_shift();
    if (!right.ok()) return right;
    size_t at = pos_;
    if (accept_comparison()) {
      pos_ = at;
      skip_space();
      return fail("comparisons do not chain; write a < b && b < c");
    }
    return add(*op, {*left, *right});
  }

  Result<int> parse_shift() {
    auto left = parse_sum();
    if (!left.ok()) return left;
    while (true) {
      Op op;
      if (accept2("<<"))
        op = Op::kShiftLeft;
      else if (accept2(">>"))
        op = Op::kShiftRight;
      else
        return left;
      auto right = parse_sum();
      if (!right.ok()) return right;
      left = add(op, {*left, *right});
    }
  }

  Result<int> parse_sum() {
    auto left = parse_product();
    if (!left.ok()) return left;
    while (true) {
      Op op;
      if (accept('+'))
        op = Op::kAdd;
      else if (accept('-'))
        op = Op::kSub;
      else
        return left;
      auto right = parse_product();
      if (!right.ok()) return right;
      left = add(op, {*left, *right});
    }
  }

  Result<int> parse_product() {
    auto left = parse_unary();
    if (!left.ok()) return left;
    while (true) {
      Op op;
      if (accept('*'))
        op = Op::kMul;
      else if (accept('/'))
        op = Op::kDiv;
      else if (accept('%'))
        op = Op::kMod;
      else
        return left;
      auto right = parse_unary();
      if (!right.ok()) return right;
      left = add(op, {*left, *right});
    }
  }

  Result<int> parse_unary() {
    if (accept('-')) {
      auto operand = parse_unary();
      if (!operand.ok()) return operand;
      return add(Op::kNegate, {*operand});
    }
    if (accept_alone('!', '=')) {
      auto operand = parse_unary();
      if (!operand.ok()) return operand;
      return add(Op::kNot, {*operand});
    }
    if (accept('~')) {
      auto operand = parse_unary();
      if (!operand.ok()) return operand;
      return add(Op::kBitNot, {*operand});
    }
    return parse_primary();
  }

  Result<int> parse_primary() {
    skip_space();
    if (pos_ >= text_.size())
      return fail("expected a number, a name or '(' but the expression ended");
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) return parse_number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_name();
    if (accept('(')) {
      auto inner = parse_conditional();
      if (!inner.ok()) return inner;
      if (!accept(')')) return fail("expected ')'");
      return inner;
    }
    return fail("expected a number, a name or '(' but found '" + std::string(1, c) + "'");
  }

  Result<int> parse_number() {
    size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, digit, &value))
        return fail("integer literal does not fit in 64 bits");
      ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
      pos_ = start;  // point at the number, not at its tail
      return fail("only integers are allowed here");
    }
    return add(Op::kConstant, {}, value);
  }

  Result<int> parse_name() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    std::string name(text_.substr(start, pos_ - start));
    if (!accept('(')) return add(Op::kVariable, {}, 0, name);
    const Function* function = find_function(name);
    if (!function) return fail("unknown function '" + name + "' (known: " + function_names() + ")");
    std::vector<int> args;
    do {
      auto arg = parse_conditional();
      if (!arg.ok()) return arg;
      args.push_back(*arg);
    } while (accept(','));
    if (!accept(')')) return fail("expected ',' or ')' in the call of " + name);
    if (function->arity > 0 && args.size() != static_cast<size_t>(function->arity))
      return fail(name + " takes " + std::to_string(function->arity) + " argument" +
                  (function->arity == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
    if (function->arity == 0 && args.size() < 2) return fail(name + " takes at least 2 arguments");
    return add(Op::kCall, std::move(args), 0, name);
  }

  std::string_view text_;
  Expression& out_;
  size_t pos_ = 0;
};

Result<Expression> Expression::parse(std::string_view text) {
  Expression expression;
  expression.text_ = std::string(text);
  ExpressionParser parser(text, expression);
  if (auto status = parser.parse(); !status.ok()) return status.error();
  return expression;
}

Expression Expression::constant(int64_t value) {
  Expression expression;
  expression.text_ = std::to_string(value);
  expression.nodes_.push_back({Op::kConstant, value, {}, {}});
  expression.root_ = 0;
  return expression;
}

Result<int64_t> Expression::evaluate(const Variables& variables) const {
  return evaluate_node(root_, variables);
}

Result<int64_t> Expression::evaluate_node(int index, const Variables& variables) const {
  const Node& node = nodes_[index];
  auto fail = [&](const std::string& what) {
    return Error::bad_input("in expression \"" + text_ + "\": " + what);
  };
  switch (node.op) {
    case Op::kConstant:
      return node.value;
    case Op::kVariable: {
      auto it = variables.find(node.name);
      if (it == variables.end()) {
        std::string known;
        for (const auto& [name, _] : variables) known += (known.empty() ? "" : ", ") + name;
        return fail("unknown name '" + node.name +
                    "' (known here: " + (known.empty() ? "none" : known) + ")");
      }
      return it->second;
    }
    case Op::kConditional: {
      auto condition = evaluate_node(node.children[0], variables);
      if (!condition.ok()) return condition;
      return evaluate_node(node.children[*condition != 0 ? 1 : 2], variables);
    }
    case Op::kAnd:
    case Op::kOr: {
      // The left operand decides where it can, as in C.
      auto left = evaluate_node(node.children[0], variables);
      if (!left.ok()) return left;
      if ((*left != 0) == (node.op == Op::kOr)) return int64_t{node.op == Op::kOr};
      auto right = evaluate_node(node.children[1], variables);
      if (!right.ok()) return right;
      return int64_t{*right != 0};
    }
    default:
      break;
  }
  std::vector<int64_t> args;
  for (int child : node.children) {
    auto value = evaluate_node(child, variables);
    if (!value.ok()) return value;
    args.push_back(*value);
  }
  int64_t result = 0;
  auto overflow = [&]() { return fail("integer overflow (64-bit)"); };
  switch (node.op) {
    case Op::kNegate:
      if (__builtin_sub_overflow(int64_t{0}, args[0], &result)) return overflow();
      return result;
    case Op::kNot:
      return int64_t{args[0] == 0};
    case Op::kBitNot:
      return ~args[0];
    case Op::kBitAnd:
      return args[0] & args[1];
    case Op::kBitOr:
      return args[0] | args[1];
    case Op::kBitXor:
      return args[0] ^ args[1];
    case Op::kShiftLeft:
    case Op::kShiftRight:
      if (args[1] < 0 || args[1] > 62)
        return fail("shift by " + std::to_string(args[1]) + " (expected 0 to 62)");
      if (args[0] < 0) return fail("shift of a negative number");
      if (node.op == Op::kShiftRight) return args[0] >> args[1];
      if (args[0] > (INT64_MAX >> args[1])) return overflow();
      return args[0] << args[1];
    case Op::kEq:
      return int64_t{args[0] == args[1]};
    case Op::kNe:
      return int64_t{args[0] != args[1]};
    case Op::kLt:
      return int64_t{args[0] < args[1]};
    case Op::kLe:
      return int64_t{args[0] <= args[1]};
    case Op::kGt:
      return int64_t{args[0] > args[1]};
    case Op::kGe:
      return int64_t{args[0] >= args[1]};
    case Op::kAdd:
      if (__builtin_add_overflow(args[0], args[1], &result)) return overflow();
      return result;
    case Op::kSub:
      if (__builtin_sub_overflow(args[0], args[1], &result)) return overflow();
      return result;
    case Op::kMul:
      if (__builtin_mul_overflow(args[0], args[1], &result)) return overflow();
      return result;
    case Op::kDiv:
    case Op::kMod:
      if (args[1] == 0) return fail("division by zero");
      if (args[0] == INT64_MIN && args[1] == -1) return overflow();
      return node.op == Op::kDiv ? args[0] / args[1] : args[0] % args[1];
    case Op::kCall:
      if (node.name == "ceil_div" || node.name == "round_up") {
        if (args[1] == 0) return fail("division by zero in " + node.name);
        if (args[0] < 0 || args[1] < 0) return fail(node.name + " needs non-negative arguments");
        if (__builtin_add_overflow(args[0], args[1] - 1, &result)) return overflow();
        result /= args[1];
        if (node.name == "round_up" && __builtin_mul_overflow(result, args[1], &result))
          return overflow();
        return result;
      }
      if (node.name == "abs") {
        if (args[0] == INT64_MIN) return overflow();
        return args[0] < 0 ? -args[0] : args[0];
      }
      if (node.name == "ceil_log2" || node.name == "floor_log2") {
        if (args[0] < 1) return fail(node.name + " needs a positive argument");
        int64_t floor_log = 63 - __builtin_clzll(static_cast<uint64_t>(args[0]));
        bool power_of_two = (args[0] & (args[0] - 1)) == 0;
        return node.name == "floor_log2" || power_of_two ? floor_log : floor_log + 1;
      }
      result = args[0];
      for (int64_t a : args)
        result = node.name == "min" ? std::min(result, a) : std::max(result, a);
      return result;
    default:
      return fail("internal error: unknown node");
  }
}

std::set<std::string> Expression::names() const {
  std::set<std::string> out;
  for (const Node& node : nodes_)
    if (node.op == Op::kVariable) out.insert(node.name);
  return out;
}

}  // namespace kgate
