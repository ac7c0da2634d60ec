// ContinueService
