/// The three kinds of Hugging Face Hub repository, which the Hub's URLs tell apart.
package enum HFRepoKind: String, Sendable, Hashable, CaseIterable {
  case model
  case dataset
  case space

  /// The kind an `hf://` URL's first segment names (`datasets`, `spaces`, `models`), or
  /// `nil` when it names none (a model's organisation).
  package init?(urlSegment: Substring) {
    switch urlSegment {
    case "models": self = .model
    case "datasets": self = .dataset
    case "spaces": self = .space
    default: return nil
    }
  }

  /// The API's segment: `/api/models/…`, `/api/datasets/…`, `/api/spaces/…`.
  package var apiSegment: String { rawValue + "s" }

  /// What precedes a repository's id in its file URLs: nothing for a model, `datasets/` or
  /// `spaces/` for the others (`huggingface_hub`'s `REPO_TYPES_URL_PREFIXES`).
  package var urlPrefix: String {
    switch self {
    case .model: ""
    case .dataset: "datasets/"
    case .space: "spaces/"
    }
  }
}
