# scripts/setup names every package the suite needs: each program a test or script calls (and
# each python3 module a script imports) comes from a package it names, or one of their Depends,
# or Debian's required set. CI's machine keeps what earlier runs installed, so a package missing
# from scripts/setup would stay green there and fail on a fresh machine; this check fails here.
set(setup_check ${PROJECT_SOURCE_DIR}/scripts/testing/setup-names-every-program)
add_test(NAME Tidemark.Setup.EveryProgramTheSuiteCallsComesFromAPackageSetupNames
         COMMAND ${expect_exit} 0 ", 0 not covered by scripts/setup$" ${setup_check} ${PROJECT_SOURCE_DIR})
# Its negative controls: setup without xauth (xvfb-run's, only a Recommends of xvfb), file (CPack's)
# or python3-yaml (a script's import) is red, naming the program, its package and its caller.
set(setup_controls
    "xauth|^scripts/testing/capture-glmark2-buffer:[0-9]+ \\(through xvfb-run\\): calls xauth, from package xauth, which scripts/setup \\(all\\) names neither"
    "file|^scripts/package:[0-9]+ \\(through cpack\\): calls file, from package file, "
    "python3-yaml|^scripts/testing/gitlab-ci-local:[0-9]+: imports the python3 module yaml, from package python3-yaml, ")
foreach(control IN LISTS setup_controls)
  string(REPLACE "|" ";" control "${control}")
  list(GET control 0 package)
  list(GET control 1 expected)
  add_test(NAME Tidemark.Setup.TheCheckIsRedWithout.${package}
           COMMAND ${expect_exit} 1 "${expected}" ${setup_check} ${PROJECT_SOURCE_DIR} --without ${package})
  set_tests_properties(Tidemark.Setup.TheCheckIsRedWithout.${package} PROPERTIES LABELS setup)
endforeach()
set_tests_properties(Tidemark.Setup.EveryProgramTheSuiteCallsComesFromAPackageSetupNames PROPERTIES LABELS setup)
