#include "backend/host_buffer.h"

#include <utility>

namespace tidemark::backend {

Result<HostBuffer> HostBuffer::create(const Device& device, MemoryAccount& account, uint64_t size,
                                      VkBufferUsageFlags usage, MemoryType type) {
  VkDevice vk_device = device.device();
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  TIDEMARK_TRY(buffer, vk::Buffer::create(vk_device, vkCreateBuffer, info, "vkCreateBuffer"));
  HostBuffer result;
  result.buffer_ = std::move(buffer);

  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(vk_device, result.buffer_.get(), &needs);
  TIDEMARK_TRY(memory, device.allocate_host_memory(needs.size));
  result.memory_ = std::move(memory);
  VkDeviceMemory raw_memory = result.memory_.get();
  if (auto ok = vk::check(vkBindBufferMemory(vk_device, result.buffer_.get(), raw_memory, 0), "vkBindBufferMemory");
      !ok)
    return std::unexpected(ok.error());
  void* mapped = nullptr;
  if (auto ok = vk::check(vkMapMemory(vk_device, raw_memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory"); !ok)
    return std::unexpected(ok.error());
  result.mapped_ = static_cast<uint8_t*>(mapped);
  result.size_ = size;
  result.allocated_ = needs.size;
  result.account_ = &account;
  result.type_ = type;
  result.id_ = account.add(static_cast<int64_t>(needs.size), type);
  return result;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : buffer_(std::move(other.buffer_)),
      memory_(std::move(other.memory_)),
      mapped_(std::exchange(other.mapped_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      allocated_(std::exchange(other.allocated_, 0)),
      id_(std::exchange(other.id_, 0)),
      type_(other.type_),
      account_(std::exchange(other.account_, nullptr)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    buffer_ = std::move(other.buffer_);
    memory_ = std::move(other.memory_);
    mapped_ = std::exchange(other.mapped_, nullptr);
    size_ = std::exchange(other.size_, 0);
    allocated_ = std::exchange(other.allocated_, 0);
    id_ = std::exchange(other.id_, 0);
    type_ = other.type_;
    account_ = std::exchange(other.account_, nullptr);
  }
  return *this;
}

HostBuffer::~HostBuffer() { release(); }

void HostBuffer::release() {
  if (account_) account_->remove(id_, static_cast<int64_t>(allocated_), type_);
  account_ = nullptr;
  buffer_.reset();
  memory_.reset();  // freeing the memory unmaps it
  mapped_ = nullptr;
}

}  // namespace tidemark::backend
