//! Every item of a paged `List*` call, as a stream.

use std::future::Future;

use futures::Stream;

use crate::{ApiError, v1};

/// A `List*` request: it carries a page token.
pub trait PagedRequest: Clone {
    fn set_page_token(&mut self, token: String);
}

/// A `List*` response: a page of items and the token of the next page.
pub trait PagedResponse {
    type Item;
    fn into_page(self) -> (Vec<Self::Item>, String);
}

macro_rules! paged {
    ($($request:ident => $response:ident . $items:ident : $item:ty;)+) => {$(
        impl PagedRequest for v1::$request {
            fn set_page_token(&mut self, token: String) {
                self.page_token = token;
            }
        }
        impl PagedResponse for v1::$response {
            type Item = $item;
            fn into_page(self) -> (Vec<$item>, String) {
                (self.$items, self.next_page_token)
            }
        }
    )+};
}

paged! {
    ListProjectsRequest => ListProjectsResponse.projects: v1::Project;
    ListCompositeAppsRequest => ListCompositeAppsResponse.composite_apps: v1::CompositeApp;
    ListAppsRequest => ListAppsResponse.apps: v1::App;
    ListCompositeProfilesRequest => ListCompositeProfilesResponse.composite_profiles: v1::CompositeProfile;
    ListAppProfilesRequest => ListAppProfilesResponse.app_profiles: v1::AppProfile;
    ListDeploymentIntentGroupsRequest => ListDeploymentIntentGroupsResponse.deployment_intent_groups: v1::DeploymentIntentGroup;
    ListPlacementIntentsRequest => ListPlacementIntentsResponse.placement_intents: v1::PlacementIntent;
    ListClusterProvidersRequest => ListClusterProvidersResponse.cluster_providers: v1::ClusterProvider;
    ListClustersRequest => ListClustersResponse.clusters: v1::Cluster;
    ListNetworkIntentsRequest => ListNetworkIntentsResponse.network_intents: v1::NetworkIntent;
    ListRenderedResourcesRequest => ListRenderedResourcesResponse.rendered_resources: v1::RenderedResource;
    ListInstancesRequest => ListInstancesResponse.instances: v1::Instance;
    ListActionsRequest => ListActionsResponse.actions: v1::Action;
    ListContainerClustersRequest => ListContainerClustersResponse.container_clusters: v1::ContainerCluster;
    ListSimInfrastructuresRequest => ListSimInfrastructuresResponse.sim_infrastructures: v1::SimInfrastructure;
    ListTokensRequest => ListTokensResponse.tokens: v1::Token;
}

/// Every item of a `List*` call, page after page, following `next_page_token`. The
/// request's `page_size` sets the size of each page.
///
/// ```no_run
/// # async fn demo(client: flotilla_client::Client) -> Result<(), flotilla_client::ApiError> {
/// use futures::TryStreamExt;
/// use flotilla_client::pages;
/// use flotilla_client::v1::ListProjectsRequest;
///
/// let request = ListProjectsRequest { page_size: 100, ..Default::default() };
/// let projects: Vec<_> = pages(request, |r| {
///     let mut lifecycle = client.lifecycle.clone();
///     async move { lifecycle.list_projects(r).await }
/// })
/// .try_collect()
/// .await?;
/// # Ok(()) }
/// ```
pub fn pages<Q, R, F, Fut>(request: Q, call: F) -> impl Stream<Item = Result<R::Item, ApiError>>
where
    Q: PagedRequest,
    R: PagedResponse,
    F: FnMut(Q) -> Fut,
    Fut: Future<Output = Result<tonic::Response<R>, tonic::Status>>,
{
    struct State<Q, F, T> {
        request: Q,
        call: F,
        items: std::vec::IntoIter<T>,
        done: bool,
    }
    let state = State {
        request,
        call,
        items: Vec::new().into_iter(),
        done: false,
    };
    futures::stream::try_unfold(state, |mut state| async move {
        loop {
            if let Some(item) = state.items.next() {
                return Ok(Some((item, state)));
            }
            if state.done {
                return Ok(None);
            }
            let response = (state.call)(state.request.clone()).await?.into_inner();
            let (items, next) = response.into_page();
            state.items = items.into_iter();
            state.done = next.is_empty();
            state.request.set_page_token(next);
        }
    })
}
