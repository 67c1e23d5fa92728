"""Conversation tests: one call graded against one test file, scorecards, reliability, suites."""
