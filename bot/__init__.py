"""Dice poker for Discord."""
