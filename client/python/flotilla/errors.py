"""Flotilla's errors as Python exceptions.

The server answers every refusal with a ``google.rpc.Status``: a code, a message and
details (``ErrorInfo`` with a machine-readable reason, ``BadRequest`` field violations,
``PreconditionFailure`` violations, ``ResourceInfo``). ``FlotillaError`` carries them
all, decoded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional

import grpc
from google.rpc import error_details_pb2, status_pb2

_DETAILS_KEY = "grpc-status-details-bin"


@dataclass(frozen=True)
class FieldViolation:
    """A bad field of the request: its path (e.g. ``project_id``) and why."""

    field: str
    description: str


@dataclass(frozen=True)
class PreconditionViolation:
    """A precondition the request failed: its type (e.g. ``STATE``), subject and why."""

    type: str
    subject: str
    description: str


class FlotillaError(grpc.RpcError):
    """A failed call: the gRPC code and message with the decoded error details.

    It is a ``grpc.RpcError`` with the methods of a failed ``grpc.Call`` (``code()``,
    ``details()``), so code that already catches those keeps working.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        domain: str = "",
        metadata: Optional[dict[str, str]] = None,
        field_violations: Optional[list[FieldViolation]] = None,
        precondition_violations: Optional[list[PreconditionViolation]] = None,
        resource_name: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.status_code = code
        self.message = message
        self.reason = reason
        """``ErrorInfo.reason``, e.g. ``INVALID_STATE_TRANSITION``; empty without one."""
        self.domain = domain
        self.metadata: dict[str, str] = metadata or {}
        """``ErrorInfo.metadata``, e.g. ``{"current_state": "INSTANTIATED"}``."""
        self.field_violations: list[FieldViolation] = field_violations or []
        self.precondition_violations: list[PreconditionViolation] = precondition_violations or []
        self.resource_name = resource_name
        """``ResourceInfo.resource_name``, when the server named the resource."""

    def code(self) -> grpc.StatusCode:
        """The gRPC status code."""
        return self.status_code

    def details(self) -> str:
        """The status message (what ``grpc.Call.details()`` returns)."""
        return self.message

    def __str__(self) -> str:
        text = f"{self.status_code.name}: {self.message}"
        if self.reason:
            text += f" [{self.reason}]"
        for violation in self.field_violations:
            text += f"\n  {violation.field}: {violation.description}"
        for pre in self.precondition_violations:
            text += f"\n  {pre.type} {pre.subject}: {pre.description}"
        return text

    @property
    def fields(self) -> list[str]:
        """The fields of the field violations, in order."""
        return [v.field for v in self.field_violations]

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> "FlotillaError":
        """Decodes a failed call (sync ``grpc.Call`` or ``grpc.aio.AioRpcError``)."""
        if isinstance(error, FlotillaError):
            return error
        code: grpc.StatusCode = _call(error, "code") or grpc.StatusCode.UNKNOWN
        message: str = _call(error, "details") or ""
        result = cls(code=code, message=message)
        trailing = _call(error, "trailing_metadata") or ()
        for key, value in _pairs(trailing):
            if key == _DETAILS_KEY and isinstance(value, bytes):
                result._decode(status_pb2.Status.FromString(value))
        return result

    def _decode(self, status: status_pb2.Status) -> None:
        if status.message:
            self.message = status.message
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            bad = error_details_pb2.BadRequest()
            failure = error_details_pb2.PreconditionFailure()
            resource = error_details_pb2.ResourceInfo()
            # Unpack answers whether the Any holds that type.
            if detail.Unpack(info):
                self.reason, self.domain = info.reason, info.domain
                self.metadata = dict(info.metadata)
            elif detail.Unpack(bad):
                self.field_violations = [
                    FieldViolation(v.field, v.description) for v in bad.field_violations
                ]
            elif detail.Unpack(failure):
                self.precondition_violations = [
                    PreconditionViolation(v.type, v.subject, v.description)
                    for v in failure.violations
                ]
            elif detail.Unpack(resource):
                self.resource_name = resource.resource_name


def _call(error: object, method: str) -> Any:
    function = getattr(error, method, None)
    return function() if callable(function) else None


def _pairs(metadata: Iterable[Any]) -> Iterable[tuple[str, Any]]:
    # Sync metadata is a tuple of (key, value) pairs; aio's Metadata iterates the same.
    for key, value in metadata:
        yield key, value
