#pragma once
// The `WireFormat` of a built-in codec: what the four share (the whole-reply and stream decoding, the
// name) assembled once around what each has of its own. Internal to the providers library.

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "codec_common.hpp"
#include "frame_decoding.hpp"
#include "reagent/providers/wire_format.hpp"

namespace reagent::providers::detail {

/// `decodeReply` for `kRules`'s provider with `kRead`, as a plain function (`WireFormat::decodeReply`).
template <const StreamRules& kRules, ReplyReader kRead>
expected<llm::ModelReply, llm::ProviderError> decodeReplyWith(int status, std::string_view body,
                                                              const ToolNameMap& names,
                                                              const http::HttpHeaders& headers) {
    return decodeReply(kRules.provider, status, body, names, headers, kRead);
}

/// `decodeStream` with `kRules`, as a plain function (`WireFormat::streamDecoder`).
template <const StreamRules& kRules>
std::unique_ptr<StreamDecoding> decodeStreamWith(ToolNameMap names) {
    return decodeStream(kRules, std::move(names));
}

/// The format named `kRules.provider` that streams by `kRules` and reads whole replies with `kRead`; the
/// other arguments are `WireFormat`'s fields of the same names. Made on the first call, which is the
/// codec's own `wire::` function, and kept for the program's life.
template <const StreamRules& kRules, ReplyReader kRead>
const WireFormat& builtinFormat(std::string_view defaultBaseUrl, std::string_view defaultModel,
                                decltype(WireFormat::encodeTools) encodeTools,
                                decltype(WireFormat::encodeRequest) encodeRequest,
                                decltype(WireFormat::refuse) refuse,
                                decltype(WireFormat::authenticate) authenticate,
                                decltype(WireFormat::encodeCount) encodeCount = nullptr,
                                decltype(WireFormat::decodeCount) decodeCount = nullptr) {
    static const WireFormat format{.name = std::string(kRules.provider),
                                   .defaultBaseUrl = std::string(defaultBaseUrl),
                                   .defaultModel = std::string(defaultModel),
                                   .encodeTools = encodeTools,
                                   .encodeRequest = encodeRequest,
                                   .refuse = refuse,
                                   .decodeReply = decodeReplyWith<kRules, kRead>,
                                   .streamDecoder = decodeStreamWith<kRules>,
                                   .authenticate = authenticate,
                                   .encodeCount = encodeCount,
                                   .decodeCount = decodeCount};
    return format;
}

}  // namespace reagent::providers::detail
