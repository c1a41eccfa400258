// The in-memory transport: two frame queues shared by the client's end and the peer's.

#include "reagent/mcp/memory_transport.hpp"

#include <optional>
#include <utility>

#include "frame_queue.hpp"

namespace reagent::mcp {

struct MemoryPeer::Link {
    explicit Link(const Executor& executor) : toClient(executor), toPeer(executor) {}

    detail::FrameQueue toClient;
    detail::FrameQueue toPeer;
    std::optional<McpError> openFault;
    std::optional<McpError> sendFault;
    bool opened = false;
    bool clientClosed = false;
    bool dropped = false;
    std::string protocolVersion;
    std::size_t framesReceived = 0;

    // Either end going away ends both directions; what was queued before is still delivered.
    void end(McpError toClientError, McpError toPeerError) {
        toClient.finish(std::move(toClientError));
        toPeer.finish(std::move(toPeerError));
    }
};

namespace {

McpError closedError(std::string message) {
    return McpError{McpErrc::connection_closed, std::move(message)};
}

class MemoryTransport final : public Transport {
  public:
    explicit MemoryTransport(std::shared_ptr<MemoryPeer::Link> link) : link_(std::move(link)) {}
    MemoryTransport(const MemoryTransport&) = delete;
    MemoryTransport& operator=(const MemoryTransport&) = delete;
    ~MemoryTransport() override { shut(); }

    Task<expected<void, McpError>> open() override {
        if (link_->openFault) {
            McpError fault = std::move(*link_->openFault);
            link_->openFault.reset();
            co_return unexpected(std::move(fault));
        }
        if (link_->clientClosed || link_->dropped) {
            co_return unexpected(closedError("the in-memory connection is closed"));
        }
        link_->opened = true;
        co_return expected<void, McpError>{};
    }

    Task<expected<void, McpError>> send(std::string frame) override {
        if (link_->clientClosed) {
            co_return unexpected(closedError("the in-memory transport was closed"));
        }
        if (link_->sendFault) {
            McpError fault = std::move(*link_->sendFault);
            link_->sendFault.reset();
            co_return unexpected(std::move(fault));
        }
        if (link_->dropped) {
            co_return unexpected(closedError("the in-memory server dropped the connection"));
        }
        link_->toPeer.push(std::move(frame));
        co_return expected<void, McpError>{};
    }

    // The frame holds the link: a receive in progress outlives this transport safely.
    Task<expected<std::string, McpError>> receive() override {
        const std::shared_ptr<MemoryPeer::Link> link = link_;
        co_return co_await link->toClient.pop();
    }

    void setProtocolVersion(std::string version) override { link_->protocolVersion = std::move(version); }

    Task<void> close() override {
        shut();
        co_return;
    }

  private:
    void shut() noexcept {
        if (!link_->clientClosed) {
            link_->clientClosed = true;
            link_->end(closedError("the in-memory transport was closed"),
                       closedError("the client closed the in-memory connection"));
        }
    }

    std::shared_ptr<MemoryPeer::Link> link_;
};

}  // namespace

MemoryPeer::MemoryPeer(std::shared_ptr<Link> link) : link_(std::move(link)) {}

Task<expected<std::string, McpError>> MemoryPeer::receive() {
    const std::shared_ptr<Link> link = link_;  // held by the frame, as the client's receive does
    auto frame = co_await link->toPeer.pop();
    if (frame) {
        ++link->framesReceived;
    }
    co_return frame;
}

expected<void, McpError> MemoryPeer::send(std::string frame) {
    if (link_->clientClosed || link_->dropped) {
        return unexpected(closedError("the in-memory connection is closed"));
    }
    link_->toClient.push(std::move(frame));
    return {};
}

void MemoryPeer::drop(McpError error) {
    if (!link_->dropped) {
        link_->dropped = true;
        link_->end(std::move(error), closedError("the in-memory server dropped the connection"));
    }
}

void MemoryPeer::failNextOpen(McpError error) {
    link_->openFault = std::move(error);
}

void MemoryPeer::failNextSend(McpError error) {
    link_->sendFault = std::move(error);
}

bool MemoryPeer::opened() const noexcept {
    return link_->opened;
}

bool MemoryPeer::clientClosed() const noexcept {
    return link_->clientClosed;
}

const std::string& MemoryPeer::protocolVersion() const noexcept {
    return link_->protocolVersion;
}

std::size_t MemoryPeer::framesReceived() const noexcept {
    return link_->framesReceived;
}

MemoryConnection makeMemoryConnection(const Executor& executor) {
    auto link = std::make_shared<MemoryPeer::Link>(executor);
    return MemoryConnection{std::make_unique<MemoryTransport>(link), std::make_shared<MemoryPeer>(link)};
}

}  // namespace reagent::mcp
