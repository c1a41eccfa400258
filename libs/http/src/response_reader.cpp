#include "response_reader.hpp"

#include <array>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <optional>

namespace reagent::http::detail {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

namespace {

constexpr std::size_t kReadSize = 16 * 1024;
constexpr std::uint32_t kHeaderLimit = 64 * 1024;

}  // namespace

struct ResponseReader::Impl {
    explicit Impl(bool expectBody) : expectBody(expectBody) { reset(); }

    void reset() {
        parser.emplace();
        parser->header_limit(kHeaderLimit);
        // Streamed model answers can be long: no limit on the body.
        parser->body_limit(boost::none);
        parser->skip(!expectBody);
    }

    bool expectBody;
    bool receivedAny = false;
    std::uint64_t bodyBytes = 0;
    beast::flat_buffer input;
    std::optional<bhttp::response_parser<bhttp::buffer_body>> parser;
    std::array<char, kReadSize> chunk{};
};

ResponseReader::ResponseReader(bool expectBody) : impl_(std::make_unique<Impl>(expectBody)) {}
ResponseReader::ResponseReader(ResponseReader&&) noexcept = default;
ResponseReader& ResponseReader::operator=(ResponseReader&&) noexcept = default;
ResponseReader::~ResponseReader() = default;

boost::asio::mutable_buffer ResponseReader::prepare() {
    return impl_->input.prepare(kReadSize);
}

void ResponseReader::commit(std::size_t n) {
    impl_->input.commit(n);
    if (n > 0) impl_->receivedAny = true;
}

ResponseReader::Step ResponseReader::parse() {
    auto& p = *impl_->parser;
    for (;;) {
        if (p.is_done()) return Step{Kind::done, {}, {}};
        if (impl_->input.size() == 0) return Step{Kind::need_more, {}, {}};
        boost::system::error_code ec;
        if (!p.is_header_done()) {
            const auto used = p.put(impl_->input.data(), ec);
            impl_->input.consume(used);
            if (ec == bhttp::error::need_more) return Step{Kind::need_more, {}, {}};
            if (ec) return Step{Kind::error, {}, ec};
            if (!p.is_header_done()) {
                if (used == 0) return Step{Kind::need_more, {}, {}};
                continue;
            }
            // An interim 1xx (not 101) response is followed by the real one.
            const int status = p.get().result_int();
            if (status >= 100 && status < 200 && status != 101) {
                impl_->reset();
                return parse();
            }
            return Step{Kind::head, {}, {}};
        }
        auto& body = p.get().body();
        body.data = impl_->chunk.data();
        body.size = impl_->chunk.size();
        const auto used = p.put(impl_->input.data(), ec);
        impl_->input.consume(used);
        const std::size_t produced = impl_->chunk.size() - body.size;
        if (ec == bhttp::error::need_buffer || ec == bhttp::error::need_more) ec = {};
        if (ec) return Step{Kind::error, {}, ec};
        if (produced > 0) {
            impl_->bodyBytes += produced;
            return Step{Kind::body, std::string_view(impl_->chunk.data(), produced), {}};
        }
        if (used == 0 && !p.is_done()) return Step{Kind::need_more, {}, {}};
    }
}

ResponseReader::Step ResponseReader::eof() {
    auto& p = *impl_->parser;
    if (p.is_done()) return Step{Kind::done, {}, {}};
    if (!p.got_some()) return Step{Kind::error, {}, bhttp::error::end_of_stream};
    boost::system::error_code ec;
    p.put_eof(ec);
    if (ec) return Step{Kind::error, {}, ec};
    return Step{Kind::done, {}, {}};
}

HttpResponseHead ResponseReader::head() const {
    const auto& message = impl_->parser->get();
    HttpResponseHead head;
    head.status = static_cast<int>(message.result_int());
    head.reason = std::string(message.reason());
    for (const auto& field : message) {
        head.headers.add(std::string(field.name_string()), std::string(field.value()));
    }
    return head;
}

bool ResponseReader::receivedAny() const noexcept {
    return impl_->receivedAny;
}

bool ResponseReader::headDone() const noexcept {
    return impl_->parser->is_header_done();
}

bool ResponseReader::done() const noexcept {
    return impl_->parser->is_done();
}

bool ResponseReader::keepAlive() const {
    return impl_->parser->is_done() && impl_->parser->keep_alive();
}

bool ResponseReader::hasLeftover() const noexcept {
    return impl_->input.size() > 0;
}

std::uint64_t ResponseReader::bodyBytes() const noexcept {
    return impl_->bodyBytes;
}

std::optional<std::uint64_t> ResponseReader::contentLength() const {
    const auto length = impl_->parser->content_length();
    if (!length) return std::nullopt;
    return *length;
}

}  // namespace reagent::http::detail
