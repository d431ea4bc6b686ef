# Under the sanitizers these look for no leaks (a process killed mid-run leaks by design), so the
# sanitizer preset's preloaded lavapipe, there to keep LeakSanitizer's view of the driver, is
# taken off: preloaded, every program the scripts start (sed, python, timeout) loaded LLVM with it,
# and the three corpora took 406 s of the lane's 861 (31 s instead of 130 s for the newer one).
set(hostile_environment "ASAN_OPTIONS=string_append::detect_leaks=0" "LD_PRELOAD=unset:")
# Hostile inputs (mutated scenarios and recordings, generated giants, bad flags): each ends with
# its expected exit code, within 10 s (30 s under ASan), by no signal, under 1 GiB; run in every build lane.
add_test(NAME Tidemark.Hostile.EveryHostileInputEndsWithItsExitCodeInTimeAndMemory
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hostile-corpus ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(Tidemark.Hostile.EveryHostileInputEndsWithItsExitCodeInTimeAndMemory PROPERTIES
                     LABELS "cli;hostile" TIMEOUT 900 COST 40 ENVIRONMENT_MODIFICATION "${hostile_environment}")

# Every command and every option that names a file to read, given a missing file, a folder, a
# FIFO and an empty file: the exit code docs/reports.md promises, naming the path, within 20 s each.
add_test(NAME Tidemark.Hostile.EveryFileOptionRefusesAMissingFileAFolderAFifoAndEmptiness
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/every-file-option ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(Tidemark.Hostile.EveryFileOptionRefusesAMissingFileAFolderAFifoAndEmptiness PROPERTIES
                     LABELS "cli;hostile" TIMEOUT 600 ENVIRONMENT_MODIFICATION "${hostile_environment}")

# The surfaces added after the first corpus (merge, sharding, expectations, compare, goldens,
# observe's bounds, reduce's outputs, CTest registrations, fixture new, bench's history, failed
# writes): each case's exit code within 20 s and 1 GiB, and nothing written or overwritten where
# it must not be. CI runs this slice; the nightly adds the giants (--whole).
add_test(NAME Tidemark.Hostile.EveryHostileInputOnTheNewerSurfacesEndsWithItsExitCodeInTimeAndMemory
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hostile-surfaces ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(Tidemark.Hostile.EveryHostileInputOnTheNewerSurfacesEndsWithItsExitCodeInTimeAndMemory PROPERTIES
                     LABELS "cli;hostile" TIMEOUT 900 COST 30 ENVIRONMENT_MODIFICATION "${hostile_environment}")

# --- issue 72: files, temporaries, termination, full disk ---
# (scripts/testing/files-temporaries-exits, one part each.) A report's journal that is a symbolic
# link or a FIFO, and a --resume whose journal links to another report's, are refused at once
# (exit 2), nothing written through them.
set(files_and_exits ${PROJECT_SOURCE_DIR}/scripts/testing/files-temporaries-exits ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
add_test(NAME Tidemark.Hostile.AReportFileThatIsALinkOrAFifoIsRefusedNeverFollowedNorWaitedOn COMMAND ${files_and_exits} files)
# SIGTERM, SIGINT and SIGHUP of observe, run, compare and capture at work (renderer servers, hung
# programs, apitrace) end every process of tidemark's tree and leave nothing in TMPDIR; a SIGKILLed
# tidemark's folder is swept by the next tidemark that starts.
add_test(NAME Tidemark.Hostile.ATidemarkToldToEndLeavesNoProcessNorTemporaryFolder COMMAND ${files_and_exits} temporaries)
# bisect told to end while a build hangs (bash -c ... sleep 300) ends the build's whole tree.
add_test(NAME Tidemark.Hostile.BisectToldToEndWhileABuildHangsEndsTheBuild COMMAND ${files_and_exits} bisect)
# capture, bisect and observe writing to a full tmpfs (a mount namespace of the script's) exit 3
# naming the path; capture keeps no log of it.
add_test(NAME Tidemark.Hostile.AFullDiskIsTheMachinesNamingThePath COMMAND ${files_and_exits} full-disk)
set_tests_properties(Tidemark.Hostile.AReportFileThatIsALinkOrAFifoIsRefusedNeverFollowedNorWaitedOn
                     Tidemark.Hostile.BisectToldToEndWhileABuildHangsEndsTheBuild
                     Tidemark.Hostile.AFullDiskIsTheMachinesNamingThePath PROPERTIES
                     LABELS "cli;hostile" TIMEOUT 300 ENVIRONMENT_MODIFICATION "${hostile_environment}")
set_tests_properties(Tidemark.Hostile.ATidemarkToldToEndLeavesNoProcessNorTemporaryFolder PROPERTIES
                     LABELS "cli;hostile;virgl" TIMEOUT 600 FIXTURES_REQUIRED renderer-servers
                     ENVIRONMENT_MODIFICATION "${hostile_environment}")
