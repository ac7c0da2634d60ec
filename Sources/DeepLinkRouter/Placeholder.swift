// DeepLinkRouter
