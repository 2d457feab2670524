"""Every item of a paged ``List*`` call, page after page."""

from __future__ import annotations

import copy
from typing import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Protocol, TypeVar


class PagedRequest(Protocol):
    page_token: str


class PagedResponse(Protocol):
    @property
    def next_page_token(self) -> str: ...


Q = TypeVar("Q", bound=PagedRequest)
R = TypeVar("R", bound=PagedResponse)
T = TypeVar("T")


def pages(call: Callable[[Q], R], request: Q, items: Callable[[R], Iterable[T]]) -> Iterator[T]:
    """Yields the items of every page, following ``next_page_token``.

    >>> for project in pages(client.lifecycle.ListProjects,
    ...                      ListProjectsRequest(page_size=100), lambda r: r.projects):
    ...     print(project.name)

    The request is copied, not changed; its ``page_size`` sets the size of each page.
    """
    request = copy.deepcopy(request)
    while True:
        response = call(request)
        yield from items(response)
        if not response.next_page_token:
            return
        request.page_token = response.next_page_token


async def apages(
    call: Callable[[Q], Awaitable[R]], request: Q, items: Callable[[R], Iterable[T]]
) -> AsyncIterator[T]:
    """The asyncio flavour of :func:`pages`."""
    request = copy.deepcopy(request)
    while True:
        response = await call(request)
        for item in items(response):
            yield item
        if not response.next_page_token:
            return
        request.page_token = response.next_page_token
