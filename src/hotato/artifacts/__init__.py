"""Conversation artifacts: manifests, hashing, signing, verification and human labels."""
