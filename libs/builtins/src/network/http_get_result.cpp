#include "network/http_get_result.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "reagent/core/detail/utf8.hpp"
#include "reagent/core/html_text.hpp"
#include "reagent/core/untrusted_json.hpp"

namespace reagent::builtins::detail {

namespace {

using nlohmann::json;

// Headers a model can act on; the rest (cookies, tracing, server software) is noise or private.
constexpr std::string_view kShownHeaders[] = {"content-type",  "content-length", "content-language",
                                              "last-modified", "location",       "retry-after"};

std::string lowerMediaType(std::string_view contentType) {
    const auto semicolon = contentType.find(';');
    std::string type(contentType.substr(0, semicolon));
    type.erase(std::remove_if(type.begin(), type.end(), [](unsigned char c) { return std::isspace(c); }),
               type.end());
    std::transform(type.begin(), type.end(), type.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return type;
}

bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool isJson(std::string_view type) {
    return type == "application/json" || endsWith(type, "+json");
}

bool isHtml(std::string_view type, std::string_view body) {
    if (type == "text/html" || type == "application/xhtml+xml") return true;
    if (!type.empty()) return false;
    std::string start(body.substr(0, 64));
    std::transform(start.begin(), start.end(), start.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto first = start.find_first_not_of(" \t\r\n");
    return first != std::string::npos &&
           (start.compare(first, 9, "<!doctype") == 0 || start.compare(first, 5, "<html") == 0);
}

bool isText(std::string_view type) {
    return type.empty() || type.rfind("text/", 0) == 0 || endsWith(type, "+xml") || endsWith(type, "/xml") ||
           type == "application/javascript" || type == "application/x-www-form-urlencoded" ||
           type == "application/x-ndjson";
}

json shownHeaders(const http::HttpHeaders& headers) {
    json out = json::object();
    for (const auto& name : kShownHeaders) {
        if (const auto value = headers.find(name)) out[std::string(name)] = std::string(*value);
    }
    return out;
}

// Sets body, bytesCut and note from `text` capped at `maxBytes`.
void putText(json& out, std::string_view text, std::size_t maxBytes) {
    const std::string_view shown = reagent::detail::utf8Prefix(text, maxBytes);
    std::string valid;
    reagent::detail::appendValidUtf8(valid, shown);
    out["body"] = std::move(valid);
    if (shown.size() < text.size()) {
        const auto cut = text.size() - shown.size();
        out["bytesCut"] = cut;
        out["note"] = "body text cut after " + std::to_string(shown.size()) +
                      " bytes: " + std::to_string(cut) + " more bytes not shown";
    }
}

}  // namespace

json describeResponse(FetchedResponse response, std::size_t maxBodyBytes) {
    json out;
    out["url"] = response.url;
    out["status"] = response.head.status;
    out["headers"] = shownHeaders(response.head.headers);
    if (!response.redirects.empty()) out["redirects"] = response.redirects;
    const std::string type = lowerMediaType(response.head.headers.find("content-type").value_or(""));
    out["contentType"] = type;
    out["bodyBytes"] = response.body.size();
    if (isJson(type) && !response.downloadCut) {
        auto parsed = parseUntrustedJson(response.body);
        if (parsed && parsed->dump(-1, ' ', false, json::error_handler_t::replace).size() <= maxBodyBytes) {
            out["format"] = "json";
            out["body"] = std::move(*parsed);
        } else {
            out["format"] = "text";
            putText(out, response.body, maxBodyBytes);
        }
    } else if (isHtml(type, response.body)) {
        out["format"] = "html-text";
        if (const auto title = htmlTitle(response.body); !title.empty()) {
            std::string valid;
            reagent::detail::appendValidUtf8(valid, reagent::detail::utf8Prefix(title, 512));
            out["title"] = std::move(valid);
        }
        putText(out, htmlToMarkdown(response.body), maxBodyBytes);
    } else if (isText(type) || isJson(type)) {
        out["format"] = "text";
        putText(out, response.body, maxBodyBytes);
    } else {
        out["format"] = "binary";
        out["body"] = nullptr;
        out["note"] =
            "binary content (" + type + ", " + std::to_string(response.body.size()) + " bytes) is not shown";
    }
    if (response.downloadCut) {
        std::string note = "download stopped after " + std::to_string(response.body.size()) + " bytes";
        if (response.bytesNotDownloaded) {
            out["bytesNotDownloaded"] = *response.bytesNotDownloaded;
            note += ": " + std::to_string(*response.bytesNotDownloaded) + " more bytes not downloaded";
        }
        out["downloadCut"] = true;
        const auto previous = out.value("note", std::string());
        out["note"] = previous.empty() ? note : previous + "; " + note;
    }
    return out;
}

}  // namespace reagent::builtins::detail
