"""Request middleware for shared computers and proxies, and the rate limit every request passes."""

from urllib.parse import urlsplit

from django.contrib.auth import middleware as auth_middleware
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse, HttpResponseForbidden
from django.shortcuts import render, resolve_url
from django.utils.cache import add_never_cache_headers
from django.utils.deprecation import MiddlewareMixin
from django.utils.http import url_has_allowed_host_and_scheme

from . import limits
from .lan import is_loopback


class LoginRequiredMiddleware(auth_middleware.LoginRequiredMiddleware):
    """Django's, except that an htmx request is sent to the login page as a whole page.

    A plain redirect would be followed inside the XHR and the login form swapped into whatever panel
    asked (a dice box, a sheet field). ``HX-Redirect`` makes htmx load the login page instead, with
    ``next`` set to the page the user was looking at, not the fragment URL that asked.
    """

    def handle_no_permission(self, request, view_func):
        if request.headers.get("HX-Request") != "true":
            return super().handle_no_permission(request, view_func)
        login_url = resolve_url(self.get_login_url(view_func))
        next_url = self._page_url(request)
        target = (
            redirect_to_login(next_url, login_url, self.get_redirect_field_name(view_func)).url
            if next_url
            else login_url
        )
        response = HttpResponse(status=204)
        response["HX-Redirect"] = target
        return response

    @staticmethod
    def _page_url(request) -> str:
        current = request.headers.get("HX-Current-URL", "")
        if current and url_has_allowed_host_and_scheme(
            current, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            parts = urlsplit(current)
            return parts.path + (f"?{parts.query}" if parts.query else "")
        # Without the page's address, a GET fragment is still a page of its own; a POST is not.
        return request.get_full_path() if request.method == "GET" else ""


class NoStoreForUsersMiddleware(MiddlewareMixin):
    """Nothing shown to a signed-in user may be kept by a browser or a proxy.

    On a shared computer the back button (or a proxy's cache) would otherwise show the last player's
    sheet or a GM's secret rolls after they logged out.
    """

    def process_response(self, request, response):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            add_never_cache_headers(response)
        return response


class DebugServesLoopbackOnly(MiddlewareMixin):
    """With DEBUG on (settings lists it first then), answer this machine only.

    Django's debug pages show a traceback and the settings to whoever meets an error, and a Host header
    is the client's to choose, so ALLOWED_HOSTS cannot keep the room out: the client's address does.
    """

    def process_request(self, request):
        if not is_loopback(request.META.get("REMOTE_ADDR", "")):
            return HttpResponseForbidden(
                "Debug mode serves this machine only.", content_type="text/plain; charset=utf-8"
            )
        return None


class RateLimitMiddleware(MiddlewareMixin):
    """Every request that rolls, works out odds, imports or writes counts against its user's budget.

    The view is not run over budget: 429 with ``Retry-After``, as plain text to htmx (which keeps the
    page as it is, ``HX-Reswap: none``; static/js/app.js shows the message beside the control) and as
    a page to a plain request. Which budget a view spends is ``limits.action_for``'s one table.
    """

    def process_view(self, request, view_func, view_args, view_kwargs):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None  # a sign-in or sign-up: django-axes limits failed log-ins
        match = request.resolver_match
        action = limits.action_for(match.url_name if match else None, request.method)
        if action is None:
            return None
        try:
            limits.rate_limit_check(user=user, action=action)
        except limits.RateLimited as error:
            return rate_limited_response(request, error)
        return None


def rate_limited_response(request, error: limits.RateLimited) -> HttpResponse:
    if request.headers.get("HX-Request") == "true":
        response = HttpResponse(str(error), status=429, content_type="text/plain; charset=utf-8")
        response["HX-Reswap"] = "none"
    else:
        response = render(request, "429.html", {"message": str(error)}, status=429)
    response["Retry-After"] = str(error.retry_after)
    return response
