import manifest from '../../package.json' with { type: 'json' };

/** The assay version every report records: this package's, which is released with assay's. */
export const ASSAY_VERSION: string = manifest.version;
