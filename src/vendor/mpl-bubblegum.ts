/**
 * The Metaplex program clients and Umi, each through a module of this folder (src/vendor/README.md): the build
 * bundles these into a few files, which load in about a third of the time of the packages' hundreds of files.
 */
export * from '@metaplex-foundation/mpl-bubblegum';
