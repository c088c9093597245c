// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

import java.io.StringWriter;
import java.util.Map;
import java.util.Properties;

import org.apache.velocity.Template;
import org.direkt.hdl.GeneratedLicence;
import org.apache.velocity.VelocityContext;
import org.apache.velocity.app.VelocityEngine;
import org.apache.velocity.runtime.RuntimeConstants;

/**
 * The overlay's Velocity templates ({@code org/direkt/overlay/templates/*.vm} on the classpath),
 * rendered in strict mode: a template that names a value the model does not hold fails instead of
 * printing the reference literally. Output always has LF line ends.
 */
public final class Templates {
    private static final VelocityEngine ENGINE = engine();

    private Templates() {
    }

    private static VelocityEngine engine() {
        Properties p = new Properties();
        p.setProperty(RuntimeConstants.RESOURCE_LOADERS, "classpath");
        p.setProperty("resource.loader.classpath.class", "org.apache.velocity.runtime.resource.loader.ClasspathResourceLoader");
        p.setProperty(RuntimeConstants.RUNTIME_REFERENCES_STRICT, "true");
        p.setProperty(RuntimeConstants.INPUT_ENCODING, "UTF-8");
        p.setProperty(RuntimeConstants.SPACE_GOBBLING, "lines");
        VelocityEngine e = new VelocityEngine(p);
        e.init();
        return e;
    }

    /** Renders template {@code name} (e.g. {@code "direkt_dma.h.vm"}) with the given model. */
    public static String render(String name, Map<String, Object> model) {
        Template t = ENGINE.getTemplate("org/direkt/overlay/templates/" + name, "UTF-8");
        VelocityContext ctx = new VelocityContext();
        model.forEach(ctx::put);
        // what every generated file says of its licence (GeneratedLicence): $spdx, $licenceNote
        ctx.put("spdx", GeneratedLicence.SPDX_LINE);
        ctx.put("licenceNote", GeneratedLicence.NOTE);
        StringWriter w = new StringWriter();
        t.merge(ctx, w);
        return w.toString().replace("\r\n", "\n");
    }
}
