"""Thin typer commands: parse options, call the core functions, render, pick the exit status."""
