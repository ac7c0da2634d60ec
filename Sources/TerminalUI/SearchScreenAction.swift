public import SearchAPI

extension SearchScreenState {
    /// Something that happened: a key, or an answer from the server.
    public enum Action: Hashable, Sendable {
        case key(Key)
        /// A Search answered; `append` when it was the next page.
        case loaded(SearchState, generation: Int, append: Bool)
        /// A Resolve answered for the result titled `title`.
        case opened(Destination, title: String)
        /// A call failed; `generation` names the Search it answers, nil for a Resolve.
        case failed(String, generation: Int?)
    }

    /// What the program must do after an action.
    public enum Effect: Hashable, Sendable {
        /// Call Search; answer with ``Action/loaded(_:generation:append:)``.
        case search(SearchRequest, generation: Int, append: Bool)
        /// Call Resolve on the result's deep link (or its entity when it has none).
        case resolve(ResolveRequest, title: String)
        /// Restore the terminal and exit.
        case quit
    }
}
