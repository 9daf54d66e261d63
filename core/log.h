#pragma once
// Progress for long work goes to stderr; results go to stdout.
#include <string>

namespace kgate {

void set_quiet(bool quiet);
// One line of progress on stderr ("kgate: compiling rmsnorm (host)").
void progress(const std::string& line);
void warn(const std::string& line);

}  // namespace kgate
