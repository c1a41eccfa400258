#include "reagent/http/http_client_config.hpp"

#ifndef REAGENT_HTTP_VERSION
#define REAGENT_HTTP_VERSION "0"
#endif

namespace reagent::http {

std::string defaultUserAgent() {
    return "reagent/" REAGENT_HTTP_VERSION;
}

}  // namespace reagent::http
