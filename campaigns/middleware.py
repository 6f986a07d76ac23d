"""Request middleware for shared computers and proxies."""

from urllib.parse import urlsplit

from django.contrib.auth import middleware as auth_middleware
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import resolve_url
from django.utils.cache import add_never_cache_headers
from django.utils.deprecation import MiddlewareMixin
from django.utils.http import url_has_allowed_host_and_scheme


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
