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
    "xauth|^[^ ]+:[0-9]+ \\(through xvfb-run\\): calls xauth, from package xauth, which scripts/setup \\(all\\) names neither"
    "file|^scripts/package:[0-9]+ \\(through cpack\\): calls file, from package file, "
    "python3-yaml|^scripts/case:[0-9]+: imports the python3 module yaml, from package python3-yaml, ")
foreach(control IN LISTS setup_controls)
  string(REPLACE "|" ";" control "${control}")
  list(GET control 0 package)
  list(GET control 1 expected)
  add_test(NAME Tidemark.Setup.TheCheckIsRedWithout.${package}
           COMMAND ${expect_exit} 1 "${expected}" ${setup_check} ${PROJECT_SOURCE_DIR} --without ${package})
  set_tests_properties(Tidemark.Setup.TheCheckIsRedWithout.${package} PROPERTIES LABELS setup)
endforeach()
set_tests_properties(Tidemark.Setup.EveryProgramTheSuiteCallsComesFromAPackageSetupNames PROPERTIES LABELS setup)

# The Debian archive the scripts fetch from (scripts/driver-prefix, scripts/testing/fresh-root) is
# read from deb822 and one-line sources alike, skipping the security archive; none is a named error.
set(read_archive bash -c "set -euo pipefail && source ${PROJECT_SOURCE_DIR}/scripts/debian-archive.bash && debian_archive")
foreach(sources one-line deb822)
  add_test(NAME Tidemark.Setup.TheArchiveIsReadFrom.${sources}
           COMMAND ${expect_exit} 0 "^http://deb.example.org/debian bookworm$" ${read_archive})
  set_tests_properties(Tidemark.Setup.TheArchiveIsReadFrom.${sources} PROPERTIES LABELS setup
                       ENVIRONMENT TIDEMARK_APT_ETC=${testdata}/apt/${sources})
endforeach()
add_test(NAME Tidemark.Setup.SourcesWithoutAnArchiveAreANamedError
         COMMAND ${expect_exit} 3 "expected a Debian archive \\(a deb stanza or line that is not -security\\) in .*testdata/apt/none/sources.list .*, found none$"
                 ${read_archive})
set_tests_properties(Tidemark.Setup.SourcesWithoutAnArchiveAreANamedError PROPERTIES LABELS setup
                     ENVIRONMENT TIDEMARK_APT_ETC=${testdata}/apt/none)

# No script of the suite stops without a word: each bash script under `set -e` sources
# scripts/loud-errors.bash, whose trap names the script, the line, the status and the command.
add_test(NAME Tidemark.Setup.AStoppedScriptNamesTheCommandThatStoppedIt
         COMMAND ${expect_exit} 1 "^bash: line 1: stopped by exit 1 of: false$"
                 bash -c "set -euo pipefail && source ${PROJECT_SOURCE_DIR}/scripts/loud-errors.bash && false\necho not reached")
add_test(NAME Tidemark.Setup.EveryBashScriptUnderSetESourcesLoudErrors
         COMMAND ${expect_exit} 0 "^checked [1-9][0-9]* scripts$" bash -c [==[
cd "$1" && checked=0 && for script in scripts/* scripts/testing/* .ci/run; do
  [ -f "$script" ] && head -1 "$script" | grep -q bash && grep -q '^set -e' "$script" || continue
  grep -q 'loud-errors.bash"$' "$script" || { echo "$script: set -e without scripts/loud-errors.bash"; exit 1; }
  checked=$((checked + 1))
done; echo "checked $checked scripts"]==] bash ${PROJECT_SOURCE_DIR})
set_tests_properties(Tidemark.Setup.AStoppedScriptNamesTheCommandThatStoppedIt
                     Tidemark.Setup.EveryBashScriptUnderSetESourcesLoudErrors PROPERTIES LABELS setup)
