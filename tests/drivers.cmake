# Driver builds side by side (drivers.yaml, scripts/driver-prefix, tidemark --driver): the portable
# group on the system's Mesa 22.3.6 and the backports' 25.0.7 in all four lanes, and a mixed stack
# refused. The first run fetches 25.0.7's packages (21 MB) into the build folder; the nightly
# runs the whole set of Zink scenarios on both builds.
add_test(NAME Tidemark.Drivers.ThePortableGroupRunsOnTwoMesaBuildsAndAMixedStackIsRefused
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/driver-builds ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Drivers.ThePortableGroupRunsOnTwoMesaBuildsAndAMixedStackIsRefused
                     PROPERTIES LABELS "drivers;zink" COST 40)
if(TIDEMARK_SANITIZED)
  set_property(TEST Tidemark.Drivers.ThePortableGroupRunsOnTwoMesaBuildsAndAMixedStackIsRefused APPEND PROPERTY
               ENVIRONMENT "TIDEMARK_SANITIZED=1")
endif()
# Bad drivers: a name the file lacks, and a drivers file that is not there, are bad input.
add_test(NAME Tidemark.Drivers.ABuildTheFileDoesNotNameIsBadInput
         COMMAND ${expect_exit} 2 "--driver: expected a build of .*drivers.yaml \\(mesa-22.3.6\\), found 'mesa-1.0'"
                 $<TARGET_FILE:tidemark> --drivers ${PROJECT_SOURCE_DIR}/drivers.yaml --driver mesa-1.0 backends)
add_test(NAME Tidemark.Drivers.AMissingDriversFileIsBadInput
         COMMAND ${expect_exit} 2 "no-such-drivers.yaml" $<TARGET_FILE:tidemark> --drivers no-such-drivers.yaml --driver x backends)
set_tests_properties(Tidemark.Drivers.ABuildTheFileDoesNotNameIsBadInput Tidemark.Drivers.AMissingDriversFileIsBadInput
                     PROPERTIES LABELS "cli;drivers")
