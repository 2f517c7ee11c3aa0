package io.awscsi.realism.proxy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * DOM helpers for AWS XML answers. Documents are parsed without namespace awareness: element names are matched as
 * written ({@code volumeSet}, {@code item}) and the EC2 namespace declaration on the root survives rewriting.
 */
public final class Xml {

  private static final DocumentBuilderFactory FACTORY = newFactory();
  private static final TransformerFactory TRANSFORMERS = TransformerFactory.newInstance();

  private Xml() {}

  private static DocumentBuilderFactory newFactory() {
    var factory = DocumentBuilderFactory.newInstance();
    try {
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("the JDK XML parser does not support secure processing", e);
    }
    factory.setNamespaceAware(false);
    factory.setExpandEntityReferences(false);
    return factory;
  }

  public static Document parse(byte[] body) {
    try {
      DocumentBuilder builder;
      synchronized (FACTORY) {
        builder = FACTORY.newDocumentBuilder();
      }
      return builder.parse(new ByteArrayInputStream(body));
    } catch (ParserConfigurationException | SAXException | IOException e) {
      throw new IllegalStateException("upstream answered XML that does not parse: " + e.getMessage(), e);
    }
  }

  public static String write(Document document) {
    try {
      var transformer = TRANSFORMERS.newTransformer();
      transformer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
      var out = new StringWriter();
      transformer.transform(new DOMSource(document), new StreamResult(out));
      return out.toString();
    } catch (TransformerException e) {
      throw new IllegalStateException("cannot serialise XML answer: " + e.getMessage(), e);
    }
  }

  /** Direct child elements with this name. */
  public static List<Element> children(Element parent, String name) {
    var result = new ArrayList<Element>();
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        result.add(element);
      }
    }
    return result;
  }

  public static Optional<Element> child(Element parent, String name) {
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        return Optional.of(element);
      }
    }
    return Optional.empty();
  }

  /** Text of a direct child element, if present. */
  public static Optional<String> text(Element parent, String name) {
    return child(parent, name).map(Node::getTextContent);
  }

  /** The {@code item} children of the named list element, or none when the list element is missing. */
  public static List<Element> items(Element parent, String listName) {
    return child(parent, listName).map(list -> children(list, "item")).orElse(List.of());
  }

  /** Sets the text of a direct child element, creating it (at the end) when missing. */
  public static Element setText(Element parent, String name, String value) {
    Element element = child(parent, name).orElseGet(() -> {
      Element created = parent.getOwnerDocument().createElement(name);
      parent.appendChild(created);
      return created;
    });
    element.setTextContent(value);
    return element;
  }

  public static void removeChild(Element parent, String name) {
    child(parent, name).ifPresent(parent::removeChild);
  }

  /** The list element with this name, created empty when missing. */
  public static Element list(Element parent, String name) {
    return child(parent, name).orElseGet(() -> {
      Element created = parent.getOwnerDocument().createElement(name);
      parent.appendChild(created);
      return created;
    });
  }

  public static Element appendElement(Element parent, String name, String text) {
    Element element = parent.getOwnerDocument().createElement(name);
    if (text != null) {
      element.setTextContent(text);
    }
    parent.appendChild(element);
    return element;
  }

  public static String escape(String text) {
    var out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
