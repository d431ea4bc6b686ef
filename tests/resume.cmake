# A run journals as it goes and resumes after a kill; --retry tells a flake from a regression
# (runner/pipeline/subject.h, report/journal.h).
#
# A run SIGKILLed once its journal holds one record and resumed with `run --resume DIR` writes the
# summary an uninterrupted run writes (digests equal), running only the four subjects with no
# record; a resume with other options or after a scenario changed is refused, exit 6
# (scripts/testing/resume-killed).
add_test(NAME Tidemark.Resume.ARunKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/resume-killed ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
# The same at --jobs 2: the kill finds two subjects under way, the journal's records in the order
# they ended.
add_test(NAME Tidemark.Resume.ARunOfTwoJobsKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/resume-killed ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} 2)
# A resumed run counts the failures its journal holds toward --max-fails: it runs no more than the
# whole run would have, and writes its summary (scripts/testing/resume-max-fails).
add_test(NAME Tidemark.Resume.AResumedRunCountsItsJournaledFailuresTowardMaxFails
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/resume-max-fails ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Resume.ARunKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun
                     Tidemark.Resume.ARunOfTwoJobsKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun
                     Tidemark.Resume.AResumedRunCountsItsJournaledFailuresTowardMaxFails PROPERTIES LABELS cli)
# A driver that fails cold and then works (the layer's fault on a process's first device only) is
# flaky under --retry (exit 5, listed with each try's digest in summary.json, JUnit's own type);
# red without --retry; a fault on every device stays red through every try; an expectations line
# saying `flaky` makes it an expected red, one saying `skip` runs nothing; --repeat 2 over the same
# fault is nondeterministic (scripts/testing/retry-flaky).
add_test(NAME Tidemark.Resume.ARunThatFailsOnceThenPassesIsFlakyAndOneThatAlwaysFailsStaysRed
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/retry-flaky ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Resume.ARunThatFailsOnceThenPassesIsFlakyAndOneThatAlwaysFailsStaysRed PROPERTIES LABELS cli)
