// Every way a Vulkan program can learn that work finished is steered by the layer or named as
// deliberately not steered (completion_commands.h), checked against the registry Debian's Vulkan
// headers ship (vk.xml). A command counts as a way of learning of completion when it can answer
// "not yet" (VK_NOT_READY or VK_TIMEOUT among its success codes), when its name (without a
// vendor suffix) ends in WaitIdle, Status or CounterValue, or when it exports a fence's or a
// semaphore's payload (vkGetFence... / vkGetSemaphore...). Commands recorded into a command
// buffer (vkCmd...) run on the device and answer nothing to the host.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "layer/completion_commands.h"
#include "layer/observer.h"

namespace tidemark::layer {
namespace {

std::set<std::string> intercepted() {
  std::set<std::string> names;
#define TIDEMARK_NAME(name) names.insert("vk" #name);
#define TIDEMARK_ALIAS_NAME(alias, name) names.insert(alias);
  TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_NAME)
  TIDEMARK_DEVICE_ALIASES(TIDEMARK_ALIAS_NAME)
#undef TIDEMARK_NAME
#undef TIDEMARK_ALIAS_NAME
  return names;
}

// The registry's commands that tell the host of completion, each with the names of its aliases.
std::map<std::string, std::set<std::string>> completion_commands(const pugi::xml_document& registry) {
  std::map<std::string, std::set<std::string>> found;
  std::map<std::string, std::string> alias_of;
  const std::regex vendor("[A-Z]{2,}$");
  const std::regex learns("(WaitIdle|Status|CounterValue)$");
  const std::regex exports("^vkGet(Fence|Semaphore)[A-Z]");
  for (pugi::xml_node command : registry.child("registry").child("commands").children("command")) {
    if (std::string(command.attribute("api").as_string("vulkan")) == "vulkansc") continue;  // Vulkan SC only
    if (command.attribute("alias")) {
      alias_of[command.attribute("name").as_string()] = command.attribute("alias").as_string();
      continue;
    }
    std::string name = command.child("proto").child_value("name");
    std::string codes = command.attribute("successcodes").as_string();
    std::string stem = std::regex_replace(name, vendor, "");
    if (name.starts_with("vkCmd")) continue;
    if (codes.find("VK_NOT_READY") != std::string::npos || codes.find("VK_TIMEOUT") != std::string::npos ||
        std::regex_search(stem, learns) || std::regex_search(name, exports))
      found[name];
  }
  for (const auto& [alias, name] : alias_of)
    if (auto entry = found.find(name); entry != found.end()) entry->second.insert(alias);
  return found;
}

TEST(LayerRegistry, EveryCommandThatTellsOfCompletionIsSteeredOrNamedWithAReason) {
  pugi::xml_document registry;
  ASSERT_TRUE(registry.load_file(TIDEMARK_VK_XML)) << "cannot read " << TIDEMARK_VK_XML;
  auto commands = completion_commands(registry);
  ASSERT_GE(commands.size(), 15u) << "the selection found too little: is this the Vulkan registry?";
  const auto steered = intercepted();
  std::map<std::string, std::string> not_steered;
  for (const auto& [command, why] : kCompletionNotSteered) {
    EXPECT_FALSE(why.empty()) << command;
    EXPECT_TRUE(not_steered.emplace(command, why).second) << command << " named twice";
  }
  for (const auto& [command, aliases] : commands) {
    const bool is_steered = steered.contains(command), is_named = not_steered.contains(command);
    EXPECT_TRUE(is_steered || is_named) << command << " tells the host of completion: intercept it (observer.h) "
                                        << "or name it in completion_commands.h with the reason";
    EXPECT_FALSE(is_steered && is_named) << command << " is both intercepted and named as not steered";
    if (!is_steered) continue;
    for (const auto& alias : aliases) {
      EXPECT_TRUE(steered.contains(alias)) << alias << " (an alias of " << command << ") reaches the driver unsteered";
    }
  }
  for (const auto& [command, why] : not_steered)
    EXPECT_TRUE(commands.contains(command))
        << command << " is named as not steered but the registry's selection lacks it";
  // The ones the layer must steer, whatever the selection says.
  for (const char* command : {"vkGetFenceStatus", "vkWaitForFences", "vkGetSemaphoreCounterValue", "vkWaitSemaphores",
                              "vkQueueWaitIdle", "vkDeviceWaitIdle"})
    EXPECT_TRUE(commands.contains(command) && steered.contains(command)) << command;
}

}  // namespace
}  // namespace tidemark::layer
