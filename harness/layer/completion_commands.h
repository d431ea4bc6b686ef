// The Vulkan commands by which a program can learn that work finished, which the layer does not
// steer, each with the reason. Every other such command in the Vulkan registry is intercepted
// (observer.h's TIDEMARK_DEVICE_FUNCTIONS and its aliases): registry_test.cpp reads vk.xml and
// fails on a command that is in neither list, so a new way of learning of completion in a newer
// registry cannot pass by unnoticed.
#pragma once

#include <string_view>

namespace tidemark::layer {

struct NotSteered {
  std::string_view command;
  std::string_view why;
};

inline constexpr NotSteered kCompletionNotSteered[] = {
    {"vkGetQueryPoolResults",
     "a query is available once the commands inside a submit have run, not at the submit's end: the rule's unit; the "
     "driver's answer passes through (Zink's GL query polls reach the layer as timeline waits, which it steers)"},
    {"vkGetEventStatus", "an event is set by a command inside a submit, or by the host: not a submit's end"},
    {"vkGetDeferredOperationResultKHR", "a deferred operation is host work, not GPU work"},
    {"vkWaitForPresentKHR", "the presentation engine's progress, not a submit's"},
    {"vkGetSwapchainStatusKHR", "the presentation engine's state, not a submit's"},
    {"vkGetFenceFdKHR",
     "an exported sync file is waited on outside Vulkan (poll(2)): the kernel answers, not the layer"},
    {"vkGetSemaphoreFdKHR",
     "an exported sync file or fd is waited on outside Vulkan: the kernel answers, not the layer"},
    {"vkGetFenceWin32HandleKHR", "an exported handle is waited on outside Vulkan (and there is no Win32 here)"},
    {"vkGetSemaphoreWin32HandleKHR", "an exported handle is waited on outside Vulkan (and there is no Win32 here)"},
    {"vkGetSemaphoreZirconHandleFUCHSIA",
     "an exported handle is waited on outside Vulkan (and there is no Fuchsia here)"},
};

}  // namespace tidemark::layer
