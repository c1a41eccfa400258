// HttpSession: routing a session's frames to the POST streams that owe them and the standalone stream.

#include "http_session.hpp"

namespace reagent::mcp::detail {

namespace {

// Finished exchanges kept for resumption beyond this are forgotten, oldest first.
constexpr std::size_t kKeptFinished = 32;

}  // namespace

std::shared_ptr<Exchange> HttpSession::openExchange(bool json) {
    return std::make_shared<Exchange>(nextExchange_++, keep_, json);
}

void HttpSession::deliver(const std::vector<PostedFrame>& frames, const std::shared_ptr<Exchange>& exchange) {
    for (const auto& frame : frames) {
        exchange->open.insert(frame.requests.begin(), frame.requests.end());
    }
    current_ = exchange;
    for (const auto& frame : frames) {
        refusedWhole_ = false;
        if (frame.headers != nullptr) {
            core->receive(frame.text, *frame.headers);
        } else {
            core->receive(frame.text);
        }
        if (refusedWhole_) {
            // None of its requests runs: their answer was that one error.
            for (const auto& id : frame.requests) {
                exchange->open.erase(id);
            }
        }
    }
    current_ = nullptr;
    for (const auto& id : exchange->open) {
        routes_[id] = exchange;
    }
    if (exchange->open.empty() || ended_) {
        exchange->events.end();
        return;
    }
    if (!exchange->json) {
        kept_[exchange->events.number()] = exchange;
        std::size_t finished = 0;
        for (const auto& [number, kept] : kept_) {
            finished += kept->events.ended() ? 1 : 0;
        }
        for (auto it = kept_.begin(); finished > kKeptFinished && it != kept_.end();) {
            if (it->second->events.ended() && !it->second->events.attached) {
                it = kept_.erase(it);
                --finished;
            } else {
                ++it;
            }
        }
    }
}

void HttpSession::route(OutgoingFrame frame) {
    std::shared_ptr<Exchange> target;
    if (frame.relatedRequest) {
        const RequestId& id = *frame.relatedRequest;
        if (current_ && current_->open.contains(id)) {
            target = current_;
        } else if (const auto found = routes_.find(id); found != routes_.end()) {
            target = found->second;
        }
    } else if (frame.isResponse && current_) {
        target = current_;  // an error owed to a malformed message of the POST being read
        refusedWhole_ = true;
    }
    if (!target || (target->json && !frame.isResponse)) {
        standalone_.push(frame.frame);
        return;
    }
    if (frame.isResponse) {
        target->response = frame.frame;
        target->refusal = frame.refusal;
    }
    if (target->json) {
        target->responses.push_back(std::move(frame.frame));
    } else {
        target->events.push(frame.frame);
    }
    if (frame.isResponse && frame.relatedRequest) {
        const RequestId& id = *frame.relatedRequest;
        target->open.erase(id);
        if (const auto found = routes_.find(id); found != routes_.end() && found->second == target) {
            routes_.erase(found);
        }
        if (target->open.empty() && target != current_) {
            target->events.end();
        }
    }
}

std::shared_ptr<EventStream> HttpSession::stream(std::uint64_t number,
                                                 const std::shared_ptr<HttpSession>& self) {
    if (number == 0) {
        return std::shared_ptr<EventStream>(self, &standalone_);
    }
    const auto found = kept_.find(number);
    if (found == kept_.end()) {
        return nullptr;
    }
    return std::shared_ptr<EventStream>(found->second, &found->second->events);
}

void HttpSession::release(std::uint64_t number) {
    const auto found = kept_.find(number);
    if (found != kept_.end() && found->second->events.ended() &&
        found->second->events.written >= found->second->events.last()) {
        kept_.erase(found);
    }
}

void HttpSession::end() {
    ended_ = true;
    standalone_.end();
    for (const auto& [id, exchange] : routes_) {
        exchange->events.end();
    }
    for (const auto& [number, exchange] : kept_) {
        exchange->events.end();
    }
    routes_.clear();
}

}  // namespace reagent::mcp::detail
