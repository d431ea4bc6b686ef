# Tidemark outside its checkout: installed into a scratch prefix, and as its unpacked Debian
# package, used by examples/driver-project's own CMake (find_package(Tidemark),
# tidemark_add_scenarios) from an empty folder (scripts/testing/install-example). The project's
# red-once needs the mutants, and an installed sanitizer build needs its runtime: the default
# build runs these.
if(TIDEMARK_MUTANTS AND NOT TIDEMARK_SANITIZED)
  add_test(NAME Tidemark.Install.AnOutsideProjectRunsItsScenariosWithTheInstalledTidemark
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/install-example ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} prefix)
  add_test(NAME Tidemark.Install.TheUnpackedDebianPackageRunsTheProjectsScenarios
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/install-example ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} deb)
  set_tests_properties(Tidemark.Install.AnOutsideProjectRunsItsScenariosWithTheInstalledTidemark
                       Tidemark.Install.TheUnpackedDebianPackageRunsTheProjectsScenarios
                       PROPERTIES LABELS "install;zink" COST 30 RUN_SERIAL FALSE RESOURCE_LOCK tidemark-install)
  # Both install the same files and run the same example project; the package's layout (cpack,
  # dpkg -x) is the nightly's, CI keeps the prefix install (about 27 s each).
  set_property(TEST Tidemark.Install.TheUnpackedDebianPackageRunsTheProjectsScenarios APPEND PROPERTY LABELS nightly)
endif()
# --version names the release and the formats a client, server and recording must share; the
# documents a run writes name the Tidemark that wrote them.
add_test(NAME Tidemark.Version.BothProgramsNameTheReleaseTheWireProtocolAndTheRecordingFormat
         COMMAND bash -c "set -e; \
$0 --version | grep -qx 'tidemark ${PROJECT_VERSION} (wire protocol [0-9]*, recording format [0-9]*)'; \
$1 --version | grep -qx 'tidemark-server ${PROJECT_VERSION} (wire protocol [0-9]*, recording format [0-9]*)'; \
$0 --quiet run $2 --record $3/version.tdrec --report $3/version; \
grep -q '\"tidemark\": \"${PROJECT_VERSION}\"' $3/version/summary.json; \
grep -rq '\"tidemark\": \"${PROJECT_VERSION}\"' --include=result.json $3/version; \
grep -qa '${PROJECT_VERSION}' $3/version.tdrec"
                 $<TARGET_FILE:tidemark> $<TARGET_FILE:tidemark-server> ${small_scenario} ${PROJECT_BINARY_DIR}/reports)
set_tests_properties(Tidemark.Version.BothProgramsNameTheReleaseTheWireProtocolAndTheRecordingFormat PROPERTIES LABELS "cli;version")
