"""One sticky pull-request comment through the GitHub REST API: found by a hidden marker among the pull request's
comments and updated in place (PATCH), else created (POST), as BloatBot keeps one comment per pull request.

Requests are built as values (ApiRequest) apart from sending them, so what the Action would send can be checked
without a network; send_request() is the one function that talks to GitHub (stdlib urllib).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Callable

from sizetool.errors import SizeToolError

MARKER = "<!-- tflm-size-toolkit -->"
PAGE_SIZE = 100
API_VERSION = "2022-11-28"


@dataclass(frozen=True)
class ApiRequest:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None


def marker_for(key: str = "") -> str:
    """The hidden marker; a key (e.g. the firmware's name) keeps one comment per firmware of a matrix. Every run of
    characters other than [A-Za-z0-9._/] becomes one '-', so the key can never end the HTML comment."""
    cleaned = re.sub(r"[^A-Za-z0-9._/]+", "-", key).strip("-")
    return f"<!-- tflm-size-toolkit: {cleaned} -->" if cleaned else MARKER


def _headers(token: str, with_body: bool) -> dict[str, str]:
    headers = {"Accept": "application/vnd.github+json", "Authorization": f"Bearer {token}",
               "X-GitHub-Api-Version": API_VERSION, "User-Agent": "tflm-size-toolkit"}
    if with_body:
        headers["Content-Type"] = "application/json"
    return headers


def list_comments_request(api_url: str, repository: str, number: int, token: str, page: int) -> ApiRequest:
    return ApiRequest("GET", f"{api_url.rstrip('/')}/repos/{repository}/issues/{number}/comments"
                             f"?per_page={PAGE_SIZE}&page={page}", _headers(token, False))


def create_comment_request(api_url: str, repository: str, number: int, token: str, body: str) -> ApiRequest:
    return ApiRequest("POST", f"{api_url.rstrip('/')}/repos/{repository}/issues/{number}/comments",
                      _headers(token, True), json.dumps({"body": body}).encode("utf-8"))


def update_comment_request(api_url: str, repository: str, comment_id: int, token: str, body: str) -> ApiRequest:
    return ApiRequest("PATCH", f"{api_url.rstrip('/')}/repos/{repository}/issues/comments/{comment_id}",
                      _headers(token, True), json.dumps({"body": body}).encode("utf-8"))


def marked_comment(comments: list[dict], marker: str) -> int | None:
    """The id of the first comment whose body starts with the marker."""
    for comment in comments:
        if isinstance(comment, dict) and str(comment.get("body") or "").startswith(marker):
            return comment.get("id")
    return None


def upsert_sticky_comment(send: Callable[[ApiRequest], object], api_url: str, repository: str, number: int,
                          token: str, text: str, marker: str = MARKER) -> ApiRequest:
    """List the pull request's comments page by page; PATCH the marked one, else POST a new one. Returns the write
    request that was sent."""
    body = f"{marker}\n{text}"
    page = 1
    while True:
        comments = send(list_comments_request(api_url, repository, number, token, page))
        if not isinstance(comments, list):
            raise SizeToolError(f"GitHub API: listing the comments of #{number} did not give a list")
        found = marked_comment(comments, marker)
        if found is not None:
            request = update_comment_request(api_url, repository, int(found), token, body)
            break
        if len(comments) < PAGE_SIZE:
            request = create_comment_request(api_url, repository, number, token, body)
            break
        page += 1
    send(request)
    return request


def send_request(request: ApiRequest, timeout: float = 30.0) -> object:
    """Send one request; the decoded JSON answer. Any failure is a SizeToolError with one line."""
    http_request = urllib.request.Request(request.url, data=request.body, headers=request.headers,
                                          method=request.method)
    try:
        with urllib.request.urlopen(http_request, timeout=timeout) as response:
            payload = response.read()
    except urllib.error.HTTPError as error:
        raise SizeToolError(f"GitHub API: {request.method} {request.url}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", None) or error
        raise SizeToolError(f"GitHub API: {request.method} {request.url}: {reason}") from None
    try:
        return json.loads(payload) if payload else None
    except ValueError:
        raise SizeToolError(f"GitHub API: {request.method} {request.url}: the answer is not JSON") from None
