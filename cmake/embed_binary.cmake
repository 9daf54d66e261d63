# Writes OUTPUT, a C++ file defining kgate::cuda::SYMBOL (the bytes of INPUT)
# and SYMBOL##Size. Usage:
#   cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=name -P embed_binary.cmake
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by cmake/embed_binary.cmake. Do not edit.\n"
     "#include <cstddef>\n"
     "namespace kgate::cuda {\n"
     "extern const unsigned char ${SYMBOL}[];\n"
     "extern const size_t ${SYMBOL}Size;\n"
     "alignas(8) const unsigned char ${SYMBOL}[] = {\n${bytes}};\n"
     "const size_t ${SYMBOL}Size = ${size};\n"
     "}  // namespace kgate::cuda\n")
