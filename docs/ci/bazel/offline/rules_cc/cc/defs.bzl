# Offline stand-in for rules_cc as Bazel 4.2's own tools load it: the native C++ rules, by name.
# (Debian's bazel-rules-cc 0.0.4 needs a newer Bazel than Debian's bazel-bootstrap 4.2.3.)
def cc_binary(**kwargs):
    native.cc_binary(**kwargs)
def cc_library(**kwargs):
    native.cc_library(**kwargs)
def cc_test(**kwargs):
    native.cc_test(**kwargs)
def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)
def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)
def cc_proto_library(**kwargs):
    native.cc_proto_library(**kwargs)
def objc_library(**kwargs):
    native.objc_library(**kwargs)
