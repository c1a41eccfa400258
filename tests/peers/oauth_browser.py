#!/usr/bin/env python3
"""A browser for the OAuth tests of the CLI, run as $BROWSER with the authorization URL: it opens the
URL and follows the authorization server's redirects, as a person's browser does after approval, which
brings it back to the CLI's loopback listener. Appends what it did to $OAUTH_BROWSER_LOG."""
import os
import sys
import urllib.request

url = sys.argv[1]
with urllib.request.urlopen(url, timeout=10) as reply:
    body = reply.read().decode("utf-8", "replace")
with open(os.environ["OAUTH_BROWSER_LOG"], "a", encoding="utf-8") as log:
    log.write(f"{reply.status} {reply.geturl()} {body.strip()[:200]}\n")
