// virglrenderer's vtest protocol (Mesa's virpipe client <-> virgl_test_server), decoded as it
// passes: every VCMD_* command of versions 0 to 3 and the replies, whose lengths follow from the
// command they answer. Only headers and the dwords a gauge needs are buffered; payloads pass
// through counted, each under a bound. Facts from virglrenderer's src/vtest (vtest_protocol.h,
// vtest_renderer.c, vtest_server.c) and Mesa's vtest winsys.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "tap/wire_decoder.h"

namespace tidemark::tap {

// The command ids of vtest_protocol.h.
enum VtestCommand : uint32_t {
  kVcmdGetCaps = 1,
  kVcmdResourceCreate = 2,
  kVcmdResourceUnref = 3,
  kVcmdTransferGet = 4,
  kVcmdTransferPut = 5,
  kVcmdSubmitCmd = 6,
  kVcmdResourceBusyWait = 7,
  kVcmdCreateRenderer = 8,
  kVcmdGetCaps2 = 9,
  kVcmdPingProtocolVersion = 10,
  kVcmdProtocolVersion = 11,
  kVcmdResourceCreate2 = 12,
  kVcmdTransferGet2 = 13,
  kVcmdTransferPut2 = 14,
  kVcmdGetParam = 15,
  kVcmdGetCapset = 16,
  kVcmdContextInit = 17,
  kVcmdResourceCreateBlob = 18,
  kVcmdSyncCreate = 19,
  kVcmdSyncUnref = 20,
  kVcmdSyncRead = 21,
  kVcmdSyncWrite = 22,
  kVcmdSyncWait = 23,
  kVcmdSubmitCmd2 = 24,
};
inline constexpr uint32_t kVcmdLast = kVcmdSubmitCmd2;

// "VCMD_RESOURCE_CREATE2"; "VCMD_0x1f" for an id vtest lacks.
std::string vtest_command_name(uint32_t id);

// Bounds on lengths (a larger one is an error): a submit's or sync wait's stream at the bound
// virglrenderer's own fuzzer sets its server (256 MiB; Mesa's command buffers are 256 KiB), a
// renderer's name at the server's own (1 MiB), a caps reply at 1 MiB (a few KiB in practice),
// and at most this many replies owed or resources alive on one connection.
inline constexpr uint64_t kVtestMaxStreamBytes = 256ull << 20;
inline constexpr uint64_t kVtestMaxNameBytes = 1ull << 20;
inline constexpr uint64_t kVtestMaxCapsBytes = 1ull << 20;
inline constexpr size_t kVtestMaxOwed = 1 << 16;
inline constexpr size_t kVtestMaxAlive = 1 << 20;

class VtestDecoder final : public WireDecoder {
 public:
  Status feed(Direction direction, std::span<const std::byte> bytes, size_t fds) override;
  Status finish() override;
  const WireGauges& gauges() const override { return gauges_; }
  std::vector<WireEvent> take_events() override;
  // The version the server answered VCMD_PROTOCOL_VERSION with (0 until it has).
  uint32_t protocol_version() const { return version_; }

 private:
  // A reply the server owes, in the order of the commands that asked for it.
  struct Owed {
    uint32_t command = 0;
    uint64_t ordinal = 0;    // the command's, among the client's, from 1
    uint32_t handle = 0;     // a version 0-2 create's own resource id
    uint64_t raw_bytes = 0;  // VCMD_TRANSFER_GET: its data, headerless
    bool fd = false;         // a byte carrying a file descriptor follows
    bool decided = true;     // a create sent before the version was answered: shape not known yet
    bool nothing = false;    // decided and owes nothing (a version 0-2 create without storage)
  };
  enum class Stage : uint8_t { Header, Args, Payload, FdByte };
  struct Cursor {
    Stage stage = Stage::Header;
    std::array<std::byte, 64> buffer{};
    size_t have = 0, need = 8;
    uint32_t length = 0, id = 0;
    uint64_t skip = 0;     // payload bytes still to pass
    uint64_t offset = 0;   // bytes of this direction consumed
    uint64_t start = 0;    // where the command or reply began
    uint64_t ordinal = 0;  // the client's commands, from 1
    bool headed = false;   // a reply with a header (not a transfer's data or a bare fd)
  };

  Status feed_client(std::span<const std::byte> bytes);
  Status feed_server(std::span<const std::byte> bytes);
  Status client_header();
  Status client_args();
  Status server_begin();
  Status server_header();
  Status server_body();
  Status server_fd_byte();
  void server_complete();
  void settle_owed();
  Status owe(Owed owed);
  Status created(uint32_t id);
  void emit(Direction direction, uint32_t command, std::optional<uint32_t> resource, uint64_t payload, uint32_t fds = 0,
            uint64_t data = 0);
  uint32_t word(const Cursor& cursor, size_t index) const;
  std::unexpected<Error> client_error(std::string_view fault, std::string_view detail) const;
  std::unexpected<Error> server_error(std::string_view fault, std::string_view detail) const;
  std::unexpected<Error> stop(std::unexpected<Error> error);

  WireGauges gauges_;
  std::vector<WireEvent> events_;
  uint64_t sequence_ = 0;
  Cursor client_, server_;
  std::deque<Owed> owed_;
  std::unordered_set<uint32_t> alive_;
  uint32_t version_ = 0;
  uint32_t versions_owed_ = 0;  // VCMD_PROTOCOL_VERSION replies not yet seen
  uint64_t fd_bytes_ = 0;       // fd-carrying reply bytes decoded
  std::optional<Error> error_;
};

}  // namespace tidemark::tap
