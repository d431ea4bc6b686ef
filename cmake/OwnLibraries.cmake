# cmake -D FOLDER=<folder> -D PROGRAMS=<program;...> -P OwnLibraries.cmake: makes FOLDER hold a
# link to each shared library the programs load when they start, as the dynamic loader finds them
# with no LD_LIBRARY_PATH (ldd), but for the GPU API's own (Vulkan's loader, EGL, GLES, glvnd's
# dispatch): a driver build may bring those, and they must come from its library_path.
#
# Why: `tidemark --driver NAME` starts again with the build's library_path in LD_LIBRARY_PATH,
# and a build's folder holding a bad libfmt.so.9 broke tidemark itself (exit 127). The programs
# carry FOLDER as DT_RPATH (harness/cli/CMakeLists.txt), which the loader searches before
# LD_LIBRARY_PATH for every library of the process; DT_RUNPATH is searched after it. FOLDER
# holds only what the programs load at their start, so by the time a driver is loaded everything
# in it is loaded already and found by its name: the build's path still reaches every other
# library (libglapi, libgallium, its own lavapipe), and the folder shadows none of the driver's.
# An RPATH of the system's library folder instead would put the system's Mesa before the build's.
foreach(variable FOLDER PROGRAMS)
  if(NOT ${variable})
    message(FATAL_ERROR "OwnLibraries.cmake: expected -D ${variable}=..., found none")
  endif()
endforeach()
file(REMOVE_RECURSE ${FOLDER})  # what the programs were linked with before is not theirs now
set(own "")
foreach(program IN LISTS PROGRAMS)
  execute_process(COMMAND env -u LD_LIBRARY_PATH ldd ${program} OUTPUT_VARIABLE listed RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "OwnLibraries.cmake: ldd ${program} failed (${failed})")
  endif()
  string(REGEX MATCHALL "[^\n\t ]+ => /[^\n ]+" found "${listed}")
  foreach(line IN LISTS found)
    string(REGEX REPLACE " => .*" "" name "${line}")
    string(REGEX REPLACE ".* => " "" path "${line}")
    if(NOT name MATCHES "^lib(vulkan|EGL|GLESv[12]_?[A-Za-z]*|GL|GLX|GLdispatch|OpenGL|gbm|glapi|drm)\\.so")
      list(APPEND own "${name}=${path}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES own)
file(MAKE_DIRECTORY ${FOLDER})
foreach(entry IN LISTS own)
  string(REGEX REPLACE "=.*" "" name "${entry}")
  string(REGEX REPLACE "^[^=]*=" "" path "${entry}")
  file(CREATE_LINK ${path} ${FOLDER}/${name} SYMBOLIC)
endforeach()
