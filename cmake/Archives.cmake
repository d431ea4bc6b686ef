# tidemark_archive_twin(TARGET): makes archive::TARGET, the same imported library linked from the
# archive Debian ships beside its shared object (libyaml-cpp.a beside libyaml-cpp.so), with the
# same usage requirements and its own dependencies twinned in turn. A library with no archive, or
# one TIDEMARK_KEEP_SHARED matches (a regular expression on target names), stays shared behind
# its twin.
#
# Why: every start of tidemark maps and relocates each shared library it links, 20 of them. Those
# with archives (abseil, yaml-cpp, pugixml, libpng, zlib, xxHash) linked from the archives took
# `tidemark --version` from 5.2 to 4.1 ms and from 4.7 to 3.6 ms in two runs (perf stat -r 80;
# 315 -> 256 page faults), observe's start with it. fmt has no archive in Debian, and with it
# libstdc++ stays shared. The layer keeps the shared abseil: Debian's archives are built for
# programs (-fPIE, initial-exec TLS), which a shared object cannot link.
function(tidemark_archive_twin target)
  set(twin "archive::${target}")
  if(TARGET ${twin})
    return()
  endif()
  get_target_property(type ${target} TYPE)
  set(location "")
  if(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "UNKNOWN_LIBRARY")
    get_target_property(configurations ${target} IMPORTED_CONFIGURATIONS)
    foreach(property IMPORTED_LOCATION ${configurations})
      if(NOT property STREQUAL "IMPORTED_LOCATION")
        set(property IMPORTED_LOCATION_${property})
      endif()
      get_target_property(found ${target} ${property})
      if(found)
        set(location ${found})
        break()
      endif()
    endforeach()
  endif()
  _tidemark_archive_path("${location}" archive)
  if(TIDEMARK_KEEP_SHARED AND target MATCHES "${TIDEMARK_KEEP_SHARED}")
    set(archive "")
  endif()
  if(archive)
    add_library(${twin} STATIC IMPORTED GLOBAL)
    set_target_properties(${twin} PROPERTIES IMPORTED_LOCATION ${archive})
  elseif(location)
    add_library(${twin} INTERFACE IMPORTED GLOBAL)
    set_property(TARGET ${twin} PROPERTY INTERFACE_LINK_LIBRARIES ${target})
    return()  # the shared library itself, with all it requires
  else()
    add_library(${twin} INTERFACE IMPORTED GLOBAL)
  endif()
  foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS
                   INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_FEATURES INTERFACE_LINK_OPTIONS)
    get_target_property(value ${target} ${property})
    if(value)
      set_property(TARGET ${twin} PROPERTY ${property} "${value}")
    endif()
  endforeach()
  get_target_property(dependencies ${target} INTERFACE_LINK_LIBRARIES)
  set(twinned "")
  foreach(dependency IN LISTS dependencies)
    _tidemark_archive_path("${dependency}" archive)
    if(TARGET ${dependency})
      tidemark_archive_twin(${dependency})
      list(APPEND twinned archive::${dependency})
    elseif(archive)
      list(APPEND twinned ${archive})  # a library named by its path (pkg-config's)
    elseif(dependency)
      list(APPEND twinned ${dependency})  # a flag (-latomic), a system library
    endif()
  endforeach()
  if(twinned)
    set_property(TARGET ${twin} PROPERTY INTERFACE_LINK_LIBRARIES "${twinned}")
  endif()
endfunction()

# The archive beside a shared object's path (libz.so.1.2.13 -> libz.a), or "" when there is none.
function(_tidemark_archive_path path out)
  set(${out} "" PARENT_SCOPE)
  if(path MATCHES "^(/.*)\\.so(\\.[0-9.]+)?$")  # the match is read after the test, never in it
    if(EXISTS "${CMAKE_MATCH_1}.a")
      set(${out} "${CMAKE_MATCH_1}.a" PARENT_SCOPE)
    endif()
  endif()
endfunction()
