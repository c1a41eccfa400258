#include "response_reader.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>

namespace reagent::http::detail {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

namespace {

// Reads start small (most replies and stream events are a few hundred bytes, and a thousand idle
// connections each keep their buffer) and double while they fill the room offered, up to the maximum.
constexpr std::size_t kFirstRead = 4 * 1024;
constexpr std::size_t kMaxRead = 64 * 1024;
constexpr std::uint32_t kHeaderLimit = 64 * 1024;

// Beast's parser with callbacks: the head goes straight into an HttpResponseHead and body bytes
// straight into the caller's string, with no message object or body buffer in between.
class Parser final : public bhttp::basic_parser<false> {
  public:
    explicit Parser(bool expectBody) {
        header_limit(kHeaderLimit);
        // Streamed model answers can be long: no limit on the body.
        body_limit(boost::none);
        skip(!expectBody);
    }

    HttpResponseHead head;
    std::string* sink = nullptr;
    std::uint64_t bodyBytes = 0;

  private:
    void on_request_impl(bhttp::verb, beast::string_view, beast::string_view, int,
                         beast::error_code& ec) override {
        ec = bhttp::error::bad_method;  // never called for a response parser
    }
    void on_response_impl(int code, beast::string_view reason, int, beast::error_code&) override {
        head.headers.reserve(8);  // a typical response has a handful of fields
        head.status = code;
        head.reason.assign(reason.data(), reason.size());
    }
    void on_field_impl(bhttp::field, beast::string_view name, beast::string_view value,
                       beast::error_code&) override {
        head.headers.add(std::string(name.data(), name.size()), std::string(value.data(), value.size()));
    }
    void on_header_impl(beast::error_code&) override {}
    void on_body_init_impl(const boost::optional<std::uint64_t>& length, beast::error_code&) override {
        if (length && sink != nullptr) sink->reserve(sink->size() + static_cast<std::size_t>(*length));
    }
    std::size_t on_body_impl(beast::string_view body, beast::error_code&) override { return append(body); }
    void on_chunk_header_impl(std::uint64_t, beast::string_view, beast::error_code&) override {}
    std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view body, beast::error_code&) override {
        return append(body);
    }
    void on_finish_impl(beast::error_code&) override {}

    std::size_t append(beast::string_view body) {
        sink->append(body.data(), body.size());
        bodyBytes += body.size();
        return body.size();
    }
};

}  // namespace

struct ResponseReader::Impl {
    explicit Impl(bool expectBody) { reset(expectBody); }

    void reset(bool body) {
        expectBody = body;
        receivedAny = false;
        parser.emplace(body);
    }

    bool expectBody = true;
    bool receivedAny = false;
    std::size_t readSize = kFirstRead;
    beast::flat_buffer input;
    std::optional<Parser> parser;
};

ResponseReader::ResponseReader(bool expectBody) : impl_(std::make_unique<Impl>(expectBody)) {}
ResponseReader::ResponseReader(ResponseReader&&) noexcept = default;
ResponseReader& ResponseReader::operator=(ResponseReader&&) noexcept = default;
ResponseReader::~ResponseReader() = default;

void ResponseReader::reset(bool expectBody) {
    impl_->reset(expectBody);
}

boost::asio::mutable_buffer ResponseReader::prepare() {
    return impl_->input.prepare(impl_->readSize);
}

void ResponseReader::commit(std::size_t n) {
    impl_->input.commit(n);
    if (n > 0) impl_->receivedAny = true;
    if (n == impl_->readSize && impl_->readSize < kMaxRead) impl_->readSize *= 2;
}

ResponseReader::Step ResponseReader::parse(std::string& sink) {
    auto& p = *impl_->parser;
    auto& input = impl_->input;
    const std::size_t before = sink.size();
    p.sink = &sink;
    for (;;) {
        if (p.is_done()) break;
        if (input.size() == 0) break;
        const bool headerDone = p.is_header_done();
        // Headers one step at a time (the caller sees `head` before any body); the body as far as it goes.
        p.eager(headerDone);
        boost::system::error_code ec;
        const auto used = p.put(input.data(), ec);
        input.consume(used);
        if (ec == bhttp::error::need_more) break;
        if (ec) {
            p.sink = nullptr;
            return Step{Kind::error, ec};
        }
        if (!headerDone && p.is_header_done()) {
            // An interim 1xx (not 101) response is followed by the real one.
            const int status = p.head.status;
            if (status >= 100 && status < 200 && status != 101) {
                impl_->parser.emplace(impl_->expectBody);
                return parse(sink);
            }
            p.sink = nullptr;
            return Step{Kind::head, {}};
        }
        if (used == 0) break;
    }
    p.sink = nullptr;
    if (sink.size() > before) return Step{Kind::body, {}};
    if (p.is_done()) return Step{Kind::done, {}};
    return Step{Kind::need_more, {}};
}

ResponseReader::Step ResponseReader::eof() {
    auto& p = *impl_->parser;
    if (p.is_done()) return Step{Kind::done, {}};
    if (!p.got_some()) return Step{Kind::error, bhttp::error::end_of_stream};
    boost::system::error_code ec;
    std::string ignored;  // a close-delimited body has no bytes left to deliver at its end
    p.sink = &ignored;
    p.put_eof(ec);
    p.sink = nullptr;
    if (ec) return Step{Kind::error, ec};
    return Step{Kind::done, {}};
}

HttpResponseHead ResponseReader::takeHead() {
    return std::move(impl_->parser->head);
}

bool ResponseReader::receivedAny() const noexcept {
    return impl_->receivedAny;
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
    return impl_->parser->bodyBytes;
}

std::optional<std::uint64_t> ResponseReader::contentLength() const {
    const auto length = impl_->parser->content_length();
    if (!length) return std::nullopt;
    return *length;
}

}  // namespace reagent::http::detail
