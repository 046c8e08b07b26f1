from django.urls import path

from playground.front import views

urlpatterns = [
    path("", views.index, name="index"),
]
