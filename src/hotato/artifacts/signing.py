"""Ed25519 keys and DSSE envelopes: the one signing mechanism behind labels, traces and manifests.

Envelopes follow the DSSE v1 spec (github.com/secure-systems-lab/dsse): the signature covers
`PAE(payloadType, payload)`, never the JSON around it, so `payload` and `payloadType` are both
authenticated and `keyid` is only a hint. A signature is accepted when any trusted key verifies
it; what the signature binds is checked by the caller (labels also bind the key id inside the
payload).

cryptography loads lazily: reading a key or checking a signature is the first thing that needs it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import msgspec

from hotato._io import read_bytes
from hotato.model.errors import InputError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )


# -- refusals -------------------------------------------------------------------------------------


class SignatureError(InputError):
    """A signed file that cannot be trusted. Exit 2; `code` names why, for JSON output."""

    code: ClassVar[str] = "invalid_signature"


class MalformedEnvelope(SignatureError):
    """Not a DSSE envelope, or one whose payload is not what it should be."""

    code = "malformed"


class UntrustedKey(SignatureError):
    """Signed, but by no key in the trust list."""

    code = "untrusted_key"


class Tampered(SignatureError):
    """A trusted key's signature that does not hold over what the file now says."""

    code = "tampered"


class Unsigned(SignatureError):
    """A signature was required and there is none."""

    code = "unsigned"


# -- keys -----------------------------------------------------------------------------------------

_PRIVATE = b"PRIVATE KEY-----"  # PKCS8, OpenSSH and the legacy PEM forms all end so
_PEM_PUBLIC = b"-----BEGIN PUBLIC KEY-----"
_SSH_PUBLIC = b"ssh-"
TRUST_SUFFIXES = (".pub", ".pem")


def key_id(public_key: Ed25519PublicKey) -> str:
    """sha256 hex of the raw 32-byte public key: the same id for PEM and OpenSSH forms."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return hashlib.sha256(public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()


def generate_private_key() -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


def private_key_pem(private_key: Ed25519PrivateKey) -> bytes:
    """Unencrypted PKCS8 PEM, as `openssl genpkey -algorithm ed25519` writes."""
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    return private_key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())


def public_key_pem(public_key: Ed25519PublicKey) -> bytes:
    """SubjectPublicKeyInfo PEM, as `openssl pkey -pubout` writes."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return public_key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)


def load_private_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PKCS8 PEM or an OpenSSH private key file."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        load_pem_private_key,
        load_ssh_private_key,
    )

    name = str(path)
    data = read_bytes(path, "private key")
    if b"ENCRYPTED PRIVATE KEY" in data:
        raise _key_refusal(name, _ENCRYPTED)
    key: object
    try:
        if b"-----BEGIN OPENSSH PRIVATE KEY-----" in data:
            key = load_ssh_private_key(data, password=None)
        elif _PRIVATE in data:
            key = load_pem_private_key(data, password=None)
        elif _PEM_PUBLIC in data or data.lstrip().startswith(_SSH_PUBLIC):
            raise _key_refusal(name, "this is a public key; signing needs the private key")
        else:
            raise _key_refusal(name, _KEY_FORMATS)
    except TypeError:  # cryptography: a password-protected OpenSSH key
        raise _key_refusal(name, _ENCRYPTED) from None
    except (ValueError, binascii.Error) as exc:
        raise _key_refusal(name, f"not a readable private key ({exc})") from None
    except UnsupportedAlgorithm as exc:
        raise _key_refusal(name, f"unsupported key type ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise _key_refusal(
            name, f"not an Ed25519 key ({_key_kind(key)}); hotato signs with Ed25519"
        )
    return key


def load_public_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """An Ed25519 public key from a SubjectPublicKeyInfo PEM or an OpenSSH `.pub` line."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import (
        load_pem_public_key,
        load_ssh_public_key,
    )

    name = str(path)
    data = read_bytes(path, "public key")
    if _PRIVATE in data:
        raise _key_refusal(
            name, "this is a private key; trust the public key (the .pub file) instead"
        )
    try:
        if _PEM_PUBLIC in data:
            key = load_pem_public_key(data)
        elif data.lstrip().startswith(_SSH_PUBLIC):
            key = load_ssh_public_key(data.strip())
        else:
            raise _key_refusal(name, _KEY_FORMATS)
    except (ValueError, binascii.Error) as exc:
        raise _key_refusal(name, f"not a readable public key ({exc})") from None
    except UnsupportedAlgorithm as exc:
        raise _key_refusal(name, f"unsupported key type ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise _key_refusal(name, f"not an Ed25519 key ({_key_kind(key)}); hotato verifies Ed25519")
    return key


_ENCRYPTED = "the private key is passphrase-protected; hotato reads unencrypted keys"
_KEY_FORMATS = (
    "not a key file hotato reads: expected PEM (PKCS8 / SubjectPublicKeyInfo) or OpenSSH "
    "(ssh-keygen -t ed25519)"
)


def _key_kind(key: object) -> str:
    return type(key).__name__.lstrip("_")


def _key_refusal(name: str, message: str) -> InputError:
    return InputError.one(message, file=name)


# -- trust ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrustedKey:
    key_id: str
    public_key: Ed25519PublicKey
    source: str  # the file it came from, for messages


class Trust:
    """The public keys a verification accepts, by key id."""

    def __init__(self, keys: Iterable[TrustedKey] = ()) -> None:
        self._keys: dict[str, TrustedKey] = {}
        for key in keys:
            self._keys.setdefault(key.key_id, key)

    @classmethod
    def of(cls, *public_keys: Ed25519PublicKey) -> Trust:
        return cls(TrustedKey(key_id(k), k, "<memory>") for k in public_keys)

    def __iter__(self) -> Iterator[TrustedKey]:
        return iter(self._keys.values())

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, kid: object) -> bool:
        return kid in self._keys

    def get(self, kid: str) -> TrustedKey | None:
        return self._keys.get(kid)


def load_trust(paths: Sequence[str | os.PathLike[str]]) -> Trust:
    """Public key files, or folders holding them (their `*.pub` and `*.pem` files).

    A folder with no public key in it is refused: an empty trust list would make every
    verification fail for a reason the user did not mean.
    """
    if not paths:
        raise InputError.one("no trusted public keys given (--trust PUBKEY or a folder of them)")
    keys: list[TrustedKey] = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            candidates = [
                f for f in p.iterdir() if f.suffix in TRUST_SUFFIXES and not f.name.startswith(".")
            ]
            links = sorted(f.name for f in candidates if f.is_symlink())
            if links:  # a link could make a key elsewhere trusted: never followed
                raise InputError.one(
                    f"trust folder holds a link ({', '.join(links)}); put the key file itself "
                    "in the folder",
                    file=str(path),
                )
            files = sorted(f for f in candidates if f.is_file())
            if not files:
                raise InputError.one(
                    "trust folder holds no public keys (*.pub or *.pem files)", file=str(path)
                )
        else:
            files = [p]
        for f in files:
            pub = load_public_key(f)
            keys.append(TrustedKey(key_id(pub), pub, str(f)))
    return Trust(keys)


MAX_SIGNATURES = 8  # a label or manifest has one signer; a few co-signers at most

# -- DSSE -----------------------------------------------------------------------------------------


class EnvelopeSignature(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    keyid: str = ""
    sig: str


class Envelope(msgspec.Struct, forbid_unknown_fields=True):
    """The DSSE JSON envelope. Field order is the order written."""

    payload: str
    payloadType: str
    signatures: list[EnvelopeSignature]


@dataclass(frozen=True)
class Verified:
    """A payload whose signature held under a trusted key."""

    payload: bytes
    payload_type: str
    key_id: str
    key_source: str


_envelope_decoder = msgspec.json.Decoder(Envelope)


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE pre-authentication encoding: `DSSEv1 SP len(type) SP type SP len(body) SP body`."""
    encoded = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(encoded), encoded, len(payload), payload)


def sign(payload: bytes, payload_type: str, private_key: Ed25519PrivateKey) -> bytes:
    """A DSSE envelope (JSON bytes, newline-terminated) over `payload`, signed by `private_key`.

    Ed25519 signatures are deterministic, so the same key and payload give the same bytes.
    """
    signature = private_key.sign(pae(payload_type, payload))
    envelope = Envelope(
        payload=base64.b64encode(payload).decode("ascii"),
        payloadType=payload_type,
        signatures=[
            EnvelopeSignature(
                keyid=key_id(private_key.public_key()),
                sig=base64.b64encode(signature).decode("ascii"),
            )
        ],
    )
    return msgspec.json.encode(envelope) + b"\n"


def verify(
    envelope: bytes,
    trust: Trust,
    *,
    payload_type: str | None = None,
    source: str | None = None,
) -> Verified:
    """The payload of `envelope` when a trusted key's signature holds over it.

    Raises MalformedEnvelope (not an envelope, bad base64, or not `payload_type`), Tampered (a
    trusted key's signature does not hold) or UntrustedKey (no trusted key signed it).
    """
    env, payload, signatures = _decode(envelope, source)
    message = pae(env.payloadType, payload)
    named_trusted: list[str] = []
    for keyid, sig in signatures:
        named = trust.get(keyid) if keyid else None
        if named is not None:
            named_trusted.append(keyid)
        # keyid is an unauthenticated hint (DSSE): try the named key first, then every other.
        candidates = [named] if named is not None else []
        candidates += [k for k in trust if k is not named]
        for key in candidates:
            if _holds(key.public_key, sig, message):
                if payload_type is not None and env.payloadType != payload_type:
                    raise MalformedEnvelope.one(
                        f"payload type is {env.payloadType!r}, expected {payload_type!r}",
                        file=source,
                    )
                return Verified(payload, env.payloadType, key.key_id, key.source)
    if named_trusted:
        raise Tampered.one(
            f"the signature by trusted key {named_trusted[0][:16]}... does not hold: the "
            "payload or its type was changed after signing, or the signature was altered",
            file=source,
        )
    names = ", ".join(sorted({k[:16] + "..." for k, _ in signatures if k})) or "no key id"
    raise UntrustedKey.one(
        f"signed by {names}, which is not among the {len(trust)} trusted key(s)", file=source
    )


def _decode(data: bytes, source: str | None) -> tuple[Envelope, bytes, list[tuple[str, bytes]]]:
    try:
        env = _envelope_decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise MalformedEnvelope.one(f"not a DSSE envelope ({exc})", file=source) from None
    if not env.signatures:
        raise MalformedEnvelope.one("the envelope carries no signatures", file=source)
    if len(env.signatures) > MAX_SIGNATURES:
        raise MalformedEnvelope.one(
            f"the envelope carries {len(env.signatures)} signatures; at most {MAX_SIGNATURES} "
            "are checked (each is tried against every trusted key)",
            file=source,
        )
    payload = _b64(env.payload, source, "$.payload")
    signatures = [
        (s.keyid, _b64(s.sig, source, f"$.signatures[{i}].sig"))
        for i, s in enumerate(env.signatures)
    ]
    return env, payload, signatures


def _b64(text: str, source: str | None, where: str) -> bytes:
    """Standard or URL-safe base64, as DSSE allows; padding optional."""
    std = text.replace("-", "+").replace("_", "/")
    std += "=" * (-len(std) % 4)
    try:
        return base64.b64decode(std, validate=True)
    except (binascii.Error, ValueError):
        raise MalformedEnvelope.one("not valid base64", file=source, path=where) from None


def _holds(public_key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        public_key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


__all__ = [
    "Envelope",
    "MalformedEnvelope",
    "SignatureError",
    "Tampered",
    "Trust",
    "TrustedKey",
    "Unsigned",
    "UntrustedKey",
    "Verified",
    "generate_private_key",
    "key_id",
    "load_private_key",
    "load_public_key",
    "load_trust",
    "pae",
    "private_key_pem",
    "public_key_pem",
    "sign",
    "verify",
]
