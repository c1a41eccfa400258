#include "reagent/http/base64_url.hpp"

#include <algorithm>

#include "reagent/core/base64.hpp"

namespace reagent::http {

std::string base64Url(std::string_view bytes) {
    std::string out = base64Encode(bytes);
    while (!out.empty() && out.back() == '=') {
        out.pop_back();
    }
    std::replace(out.begin(), out.end(), '+', '-');
    std::replace(out.begin(), out.end(), '/', '_');
    return out;
}

}  // namespace reagent::http
