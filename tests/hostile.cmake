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
# FIFO and an empty file: the exit code README promises, naming the path, within 20 s each.
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
