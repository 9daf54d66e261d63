# libgit2 is included from gate/ only (gate/git_handle.h) and libcurl from
# core/ only (core/http_transport.cpp, core/retry_policy.cpp): HACKING.md,
# "The folders". Run by CTest as `layers.io_includes`:
#   cmake -DSOURCE_DIR=<repository> -P tests/io_include_check.cmake
set(rules "git2\\.h|gate/" "curl/|core/")
set(failures "")
foreach(folder core runner gate agent bot webhooks cli bench)
  file(GLOB_RECURSE files ${SOURCE_DIR}/${folder}/*.cpp ${SOURCE_DIR}/${folder}/*.h
       ${SOURCE_DIR}/${folder}/*.cu ${SOURCE_DIR}/${folder}/*.cuh)
  foreach(file IN LISTS files)
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${file})
    foreach(rule IN LISTS rules)
      string(REPLACE "|" ";" parts "${rule}")
      list(GET parts 0 header)
      list(GET parts 1 owner)
      file(STRINGS ${file} hits REGEX "^[ \t]*#[ \t]*include[ \t]*<${header}")
      string(FIND "${rel}" "${owner}" at)
      if(hits AND NOT at EQUAL 0)
        string(APPEND failures "  ${rel} includes <${header}>: only ${owner} may\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "libgit2 and libcurl belong to one folder each:\n${failures}")
endif()
message(STATUS "libgit2 only in gate/, libcurl only in core/")
