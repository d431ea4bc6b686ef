// The builders every command file shares (cli/command_line.h): positional paths, and subcommands
// whose options are made only when their name is parsed.
#include "cli/command_line.h"

namespace tidemark::cli {

void add_paths(CLI::App& command, std::vector<std::string>& inputs, const char* what) {
  command.add_option("paths", inputs, what)->required();
}

CLI::App* lazy_subcommand(CLI::App& parent, std::string name, std::string description,
                          std::function<void(CLI::App*)> options) {
  CLI::App* command = parent.add_subcommand(std::move(name), std::move(description));
  command->preparse_callback([command, options = std::move(options)](std::size_t) { options(command); });
  return command;
}

}  // namespace tidemark::cli
