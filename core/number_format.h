#pragma once
// How kgate writes numbers for people: terminal tables, Markdown reports,
// pull requests, charts. One place, so a time or a change reads the same in
// every output.
#include <string>

namespace kgate {

// "12.30 us", "1.200 ms", "2.500 s"; "-" when not finite.
std::string format_seconds(double seconds);
// "3.2e-04", "0", "inf", "nan".
std::string format_error(double value);
// A signed percentage of a fraction: 0.123 -> "+12.3%" ("+12.3" without the sign).
std::string format_percent(double fraction, bool percent_sign = true);
// A speedup factor: 1.2345 -> "1.23x".
std::string format_speedup(double factor);
// `significant` significant digits, shortest form: 1.4567 -> "1.46", 1e-7 -> "1e-07".
std::string format_number(double value, int significant = 3);

}  // namespace kgate
