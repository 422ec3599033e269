"""Distances between points on the globe."""
