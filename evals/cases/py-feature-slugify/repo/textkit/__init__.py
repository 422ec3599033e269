"""Small text helpers for URLs and file names."""
