#pragma once
/// \file
/// \brief `loopbackAuthorizer`: the OAuth authorization step of a program run by a person (RFC 8252):
/// show the authorization link, and catch the browser's redirect on a loopback address. In
/// `reagent::mcp_remote`.

#include <functional>

#include "reagent/mcp/oauth.hpp"

namespace reagent::mcp {

/// \brief An `Authorizer` that listens on the host and port of `AuthorizationRequest::redirectUri` (an
/// `http://` URL on `127.0.0.1`, `[::1]` or `localhost`, with a port), calls `show` with the request (to
/// print the link or open a browser), and returns once the browser is sent back to the redirect path with
/// a `code` or an `error`; the browser is told it may close the tab. Other requests to the listener get
/// 404 and the wait goes on. Connections are served side by side (a browser's idle pre-connection does
/// not hold up the redirect); one that sends nothing is dropped after 10 s.
///
/// \par Errors
/// `unauthorized` for a redirect URI that is not a loopback `http://` URL with a port, or a port that
/// cannot be listened on (the message names it). The wait is bounded by
/// `OAuthSettings::authorizationTimeout` and ends at the caller's cancellation.
[[nodiscard]] Authorizer loopbackAuthorizer(std::function<void(const AuthorizationRequest&)> show);

}  // namespace reagent::mcp
