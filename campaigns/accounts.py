"""Account pages: Django's own auth views, with a sign-up view beside them.

An invite followed before logging in is remembered in the session (``remember_invite``) and seats the
player as soon as the sign-up or log-in form is done (``seat_from_invite``), whichever link led there.

Also the receivers (connected in apps.py) that make an ended session end its table sockets too.
"""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.http import url_has_allowed_host_and_scheme

from . import realtime, services
from .forms import crispy_helper

INVITE_SESSION_KEY = "invite_token"


def remember_invite(request, token: str) -> None:
    """An invite opened before logging in: kept in the session (log-in keeps the session's data)."""
    request.session[INVITE_SESSION_KEY] = token


def seat_from_invite(request, user):
    """Seat the user at the table of the invite they followed before logging in; that campaign, or None."""
    token = request.session.pop(INVITE_SESSION_KEY, None)
    if not token:
        return None
    try:
        campaign, joined = services.campaign_join(user=user, token=token)
    except services.CampaignError as error:
        messages.error(request, str(error))
        return None
    if joined:
        messages.success(request, f"Welcome to {campaign.name}!")
    return campaign


@login_not_required
def signup(request):
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = ""
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(seat_from_invite(request, user) or next_url or "dashboard")
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


class LoginView(auth_views.LoginView):
    def form_valid(self, form):
        response = super().form_valid(form)
        campaign = seat_from_invite(self.request, form.get_user())
        return redirect(campaign) if campaign is not None else response


class PasswordChangeView(auth_views.PasswordChangeView):
    def get_form(self, form_class=None):
        form = super().get_form(form_class)
        form.helper = crispy_helper("Change password")
        return form


urlpatterns = [
    path("signup/", signup, name="signup"),
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
]


def close_sockets_on_logout(sender, request, user, **kwargs):
    """A logout (in any tab) closes the sockets that browser session opened; other devices stay."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and session_key:
        realtime.sessions_ended(user_id=user.pk, session_key=session_key)


def close_sockets_on_password_change(sender, instance, raw=False, update_fields=None, **kwargs):
    """A new password (the password page, a reset, the admin) closes every socket of that user.

    Django logs out every other session when the password changes, so their sockets must go too. The
    browser that changed it is closed as well: its session was re-keyed, so its sockets no longer match
    a live session, and a reload seats it again. Checked on pre_save against the stored hash because
    post_save cannot see the old value; a save that leaves the password out (last_login) costs nothing.
    """
    if raw or instance._state.adding or instance.pk is None:
        return
    if update_fields is not None and "password" not in update_fields:
        return
    stored = sender._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is not None and stored != instance.password:
        realtime.sessions_ended(user_id=instance.pk)
